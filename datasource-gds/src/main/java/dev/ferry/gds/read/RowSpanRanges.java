package dev.ferry.gds.read;

import dev.ferry.gds.parquet.RowSpan;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.internal.filter2.columnindex.RowRanges;

import java.util.Optional;
import java.util.PrimitiveIterator;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * A planned {@link RowSpan} of a row group as the rows a task reads. The planner cuts at even row
 * counts without the offset indexes; here each cut moves back to the first row of the page of the
 * anchor column (the row group's largest requested chunk) that holds it, so the anchor's pages are
 * each read by one task only; other columns' pages across a cut are read by both tasks, each keeping
 * its rows. The move depends only on the cut and the anchor's offset index, so the task before a cut
 * and the task after it move it to the same row: adjacent spans still meet, no row is read twice or lost.
 */
final class RowSpanRanges
{
    private RowSpanRanges() {}

    /** The anchor: of {@code columns}, the chunk with the most bytes in {@code block}, ties to the first in file order; empty when none is in the file. */
    static Optional<ColumnChunkMetaData> anchor(BlockMetaData block, Set<ColumnPath> columns)
    {
        ColumnChunkMetaData anchor = null;
        for (ColumnChunkMetaData chunk : block.getColumns()) {
            if (columns.contains(chunk.getPath()) && (anchor == null || chunk.getTotalSize() > anchor.getTotalSize())) {
                anchor = chunk;
            }
        }
        return Optional.ofNullable(anchor);
    }

    /** {@code span} with both ends moved to page starts of {@code anchor} (0 and the row count stay); empty when both land on the same row. */
    static Optional<RowSpan> aligned(RowSpan span, long rowCount, Optional<OffsetIndex> anchor)
    {
        long from = alignedCut(span.from(), rowCount, anchor);
        long to = alignedCut(Math.min(span.to(), rowCount), rowCount, anchor);
        return to > from ? Optional.of(new RowSpan(from, to)) : Optional.empty();
    }

    private static long alignedCut(long cut, long rowCount, Optional<OffsetIndex> anchor)
    {
        if (cut <= 0 || cut >= rowCount || anchor.isEmpty()) {
            return Math.max(0, Math.min(cut, rowCount));
        }
        OffsetIndex index = anchor.get();
        long start = 0;
        for (int page = 0; page < index.getPageCount(); page++) {
            long first = index.getFirstRowIndex(page);
            if (first > cut) {
                break;
            }
            start = first;
        }
        return start;
    }

    /** The rows {@code [span.from, span.to)} as parquet-mr's row ranges of a row group of {@code rowCount} rows. */
    static RowRanges of(RowSpan span, long rowCount)
    {
        PrimitiveIterator.OfInt onePage = IntStream.of(0).iterator();
        return RowRanges.create(rowCount, onePage, new OnePage(span));
    }

    // An offset index of one page holding exactly the span's rows: RowRanges is built only from page row indexes.
    private record OnePage(RowSpan span)
            implements OffsetIndex
    {
        @Override
        public int getPageCount()
        {
            return 1;
        }

        @Override
        public long getOffset(int pageIndex)
        {
            throw new UnsupportedOperationException("a row span has no page offsets");
        }

        @Override
        public int getCompressedPageSize(int pageIndex)
        {
            throw new UnsupportedOperationException("a row span has no page sizes");
        }

        @Override
        public long getFirstRowIndex(int pageIndex)
        {
            return span.from();
        }

        @Override
        public long getLastRowIndex(int pageIndex, long rowGroupRowCount)
        {
            return span.to() - 1;
        }
    }
}
