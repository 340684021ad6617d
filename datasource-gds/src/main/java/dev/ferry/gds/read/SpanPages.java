package dev.ferry.gds.read;

import dev.ferry.gds.io.DiskRange;
import dev.ferry.gds.parquet.CorruptParquetException;
import dev.ferry.gds.parquet.RowSpan;
import org.apache.parquet.format.Util;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.internal.hadoop.metadata.IndexReference;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The file ranges a task reads for its {@link RowSpan} of a split row group: per requested column,
 * the dictionary page (the bytes before the first data page) and the data pages that hold rows of
 * the span, found from the offset indexes, which the task has read first (one request for the
 * indexes of the whole row group). A superset of what parquet-mr's filtered read then asks for:
 * those pages, or fewer when a page filter narrows the span. Parsed here from the bytes, not
 * through the reader, because this runs on the prefetch thread while the task decodes.
 */
final class SpanPages
{
    private SpanPages() {}

    /** The offset index of each of {@code columns} in {@code block}, from {@code indexes}, the bytes of {@code indexRange}. */
    static Map<ColumnPath, OffsetIndex> offsetIndexes(BlockMetaData block, Set<ColumnPath> columns, DiskRange indexRange, ByteBuffer indexes, String file)
    {
        Map<ColumnPath, OffsetIndex> parsed = new HashMap<>();
        for (ColumnChunkMetaData chunk : block.getColumns()) {
            if (!columns.contains(chunk.getPath())) {
                continue;
            }
            IndexReference reference = chunk.getOffsetIndexReference();
            if (reference == null) {
                throw new CorruptParquetException(file, "the row group at offset " + block.getStartingPos() + " was split by rows, but column "
                        + chunk.getPath().toDotString() + " has no offset index");
            }
            long start = reference.getOffset() - indexRange.position();
            if (start < 0 || reference.getLength() <= 0 || start + reference.getLength() > indexes.remaining()) {
                throw new CorruptParquetException(file, "the offset index of " + chunk.getPath().toDotString() + " claims " + reference.getLength()
                        + " bytes at offset " + reference.getOffset() + ", outside the page indexes of its row group");
            }
            byte[] bytes = new byte[reference.getLength()];
            indexes.duplicate().position((int) start).get(bytes);
            try {
                parsed.put(chunk.getPath(), ParquetMetadataConverter.fromParquetOffsetIndex(Util.readOffsetIndex(new ByteArrayInputStream(bytes))));
            }
            catch (IOException | RuntimeException e) {
                throw new CorruptParquetException(file, "cannot read the offset index of " + chunk.getPath().toDotString() + " at offset "
                        + reference.getOffset() + ": " + e.getMessage(), e);
            }
        }
        return parsed;
    }

    /** The ranges holding {@code span}'s rows ({@link RowSpanRanges#aligned}) of every column in {@code offsetIndexes}; none when the span is empty. */
    static List<DiskRange> ranges(BlockMetaData block, RowSpan span, Map<ColumnPath, OffsetIndex> offsetIndexes, String file)
    {
        Optional<ColumnChunkMetaData> anchor = RowSpanRanges.anchor(block, offsetIndexes.keySet());
        Optional<RowSpan> aligned = RowSpanRanges.aligned(span, block.getRowCount(), anchor.map(chunk -> offsetIndexes.get(chunk.getPath())));
        List<DiskRange> ranges = new ArrayList<>();
        if (aligned.isEmpty()) {
            return ranges;
        }
        long first = aligned.get().from();
        long last = aligned.get().to() - 1;
        for (ColumnChunkMetaData chunk : block.getColumns()) {
            OffsetIndex index = offsetIndexes.get(chunk.getPath());
            if (index == null) {
                continue;
            }
            long chunkStart = chunk.getStartingPos();
            long chunkEnd = chunkStart + chunk.getTotalSize();
            long from = Long.MAX_VALUE;
            long to = Long.MIN_VALUE;
            for (int page = 0; page < index.getPageCount(); page++) {
                long offset = index.getOffset(page);
                long end = offset + index.getCompressedPageSize(page);
                if (offset < chunkStart || index.getCompressedPageSize(page) < 0 || end > chunkEnd) {
                    throw new CorruptParquetException(file, "page " + page + " of column " + chunk.getPath().toDotString() + " claims bytes [" + offset + ", "
                            + end + ") outside its chunk [" + chunkStart + ", " + chunkEnd + ")");
                }
                if (index.getFirstRowIndex(page) <= last && index.getLastRowIndex(page, block.getRowCount()) >= first) {
                    from = Math.min(from, offset);
                    to = Math.max(to, end);
                }
            }
            if (index.getPageCount() > 0 && index.getOffset(0) > chunkStart) {
                // The dictionary page, before the first data page.
                ranges.add(new DiskRange(chunkStart, (int) (index.getOffset(0) - chunkStart)));
            }
            if (from < to) {
                ranges.add(new DiskRange(from, (int) (to - from)));
            }
        }
        return ranges;
    }
}
