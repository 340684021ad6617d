package dev.ferry.gds.read;

import dev.ferry.gds.parquet.RowSpan;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.internal.column.columnindex.OffsetIndexBuilder;
import org.apache.parquet.internal.filter2.columnindex.RowRanges;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RowSpanRangesTest
{
    @Test
    void cutsMoveToTheStartOfTheAnchorPageThatHoldsThemAndAdjacentSpansStillMeet()
    {
        // Pages of uneven row counts: 0, 700, 1500, 1600, 4000 (5000 rows).
        OffsetIndex anchor = pages(5000, 0, 700, 1500, 1600, 4000);
        long rows = 5000;
        for (int count = 1; count <= 7; count++) {
            long next = 0;
            long covered = 0;
            for (int part = 0; part < count; part++) {
                RowSpan planned = new RowSpan(rows * part / count, rows * (part + 1) / count);
                Optional<RowSpan> aligned = RowSpanRanges.aligned(planned, rows, Optional.of(anchor));
                if (aligned.isEmpty()) {
                    continue;
                }
                assertEquals(next, aligned.get().from(), count + " spans: " + planned);
                assertTrue(List.of(0L, 700L, 1500L, 1600L, 4000L).contains(aligned.get().from()), aligned.get().toString());
                next = aligned.get().to();
                covered += aligned.get().rows();
            }
            assertEquals(rows, next, count + " spans");
            assertEquals(rows, covered, count + " spans");
        }
        assertEquals(Optional.of(new RowSpan(1600, 4000)), RowSpanRanges.aligned(new RowSpan(2500, 4100), rows, Optional.of(anchor)));
        // Both cuts inside one page: nothing for this span, the span holding that page's start reads it.
        assertEquals(Optional.empty(), RowSpanRanges.aligned(new RowSpan(2000, 3000), rows, Optional.of(anchor)));
        // No requested column in the file: no pages to align to, the planned cut stands.
        assertEquals(Optional.of(new RowSpan(2000, 3000)), RowSpanRanges.aligned(new RowSpan(2000, 3000), rows, Optional.empty()));
    }

    @Test
    void aSpanBecomesOneRangeOfParquetRows()
    {
        RowRanges ranges = RowSpanRanges.of(new RowSpan(1500, 4000), 5000);
        assertEquals(2500, ranges.rowCount());
        assertEquals(1, ranges.getRanges().size());
        assertEquals(1500, ranges.getRanges().get(0).from);
        assertEquals(3999, ranges.getRanges().get(0).to);
        assertTrue(ranges.isOverlapping(3999, 5000));
        assertTrue(!ranges.isOverlapping(4000, 4999));
    }

    private static OffsetIndex pages(long rowCount, long... firstRows)
    {
        OffsetIndexBuilder builder = OffsetIndexBuilder.getBuilder();
        List<Long> starts = new ArrayList<>();
        for (long first : firstRows) {
            starts.add(first);
        }
        for (int page = 0; page < starts.size(); page++) {
            long end = page + 1 < starts.size() ? starts.get(page + 1) : rowCount;
            builder.add(100, end - starts.get(page));
        }
        return builder.build(4);
    }
}
