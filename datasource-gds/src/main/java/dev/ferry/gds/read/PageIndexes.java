package dev.ferry.gds.read;

import dev.ferry.gds.io.DiskRange;
import dev.ferry.gds.parquet.CorruptParquetException;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.internal.column.columnindex.ColumnIndex;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.internal.filter2.columnindex.ColumnIndexStore;
import org.apache.parquet.internal.filter2.columnindex.RowRanges;
import org.apache.parquet.internal.hadoop.metadata.IndexReference;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * The column and offset indexes of one row group, for parquet-mr's column-index filter. They are
 * read through the reader, from bytes the slice reader fetched in its planned read of the row group
 * ({@link #ranges}); a column without indexes is reported missing, which makes the filter keep all
 * of its rows.
 */
final class PageIndexes
        implements ColumnIndexStore
{
    private final ParquetFileReader reader;
    private final BlockMetaData block;
    private final String file;
    private final Map<ColumnPath, ColumnChunkMetaData> chunks = new HashMap<>();
    private final Map<ColumnPath, OffsetIndex> offsetIndexes = new HashMap<>();

    PageIndexes(ParquetFileReader reader, BlockMetaData block, String file)
    {
        this.reader = requireNonNull(reader, "reader is null");
        this.block = requireNonNull(block, "block is null");
        this.file = requireNonNull(file, "file is null");
        for (ColumnChunkMetaData chunk : block.getColumns()) {
            chunks.put(chunk.getPath(), chunk);
        }
    }

    /** One range spanning the column and offset indexes of {@code columns} in {@code block}, empty when it has none. */
    static Optional<DiskRange> ranges(BlockMetaData block, Set<ColumnPath> columns)
    {
        long start = Long.MAX_VALUE;
        long end = Long.MIN_VALUE;
        for (ColumnChunkMetaData chunk : block.getColumns()) {
            if (!columns.contains(chunk.getPath())) {
                continue;
            }
            for (IndexReference reference : new IndexReference[] {chunk.getColumnIndexReference(), chunk.getOffsetIndexReference()}) {
                if (reference != null && reference.getOffset() >= 0 && reference.getLength() > 0) {
                    start = Math.min(start, reference.getOffset());
                    end = Math.max(end, reference.getOffset() + reference.getLength());
                }
            }
        }
        if (start == Long.MAX_VALUE || end - start > Integer.MAX_VALUE) {
            return Optional.empty();
        }
        return Optional.of(new DiskRange(start, (int) (end - start)));
    }

    @Override
    public ColumnIndex getColumnIndex(ColumnPath column)
    {
        ColumnChunkMetaData chunk = chunks.get(column);
        if (chunk == null || chunk.getColumnIndexReference() == null) {
            return null;
        }
        try {
            return reader.readColumnIndex(chunk);
        }
        catch (IOException | RuntimeException e) {
            throw new CorruptParquetException(file, "cannot read the column index of " + column.toDotString() + " at offset "
                    + chunk.getColumnIndexReference().getOffset() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public OffsetIndex getOffsetIndex(ColumnPath column)
            throws MissingOffsetIndexException
    {
        OffsetIndex known = offsetIndexes.get(column);
        if (known != null) {
            return known;
        }
        ColumnChunkMetaData chunk = chunks.get(column);
        if (chunk == null || chunk.getOffsetIndexReference() == null) {
            throw new MissingOffsetIndexException(column);
        }
        OffsetIndex index;
        try {
            index = reader.readOffsetIndex(chunk);
        }
        catch (IOException | RuntimeException e) {
            throw new CorruptParquetException(file, "cannot read the offset index of " + column.toDotString() + " at offset "
                    + chunk.getOffsetIndexReference().getOffset() + ": " + e.getMessage(), e);
        }
        if (index == null) {
            throw new MissingOffsetIndexException(column);
        }
        offsetIndexes.put(column, index);
        return index;
    }

    /** Pages of {@code columns} whose rows all lie outside {@code ranges}: the pages the filtered read does not read. */
    long pagesOutside(RowRanges ranges, Set<ColumnPath> columns)
    {
        long skipped = 0;
        for (ColumnPath column : columns) {
            OffsetIndex index;
            try {
                index = getOffsetIndex(column);
            }
            catch (MissingOffsetIndexException e) {
                continue;
            }
            for (int page = 0; page < index.getPageCount(); page++) {
                if (!ranges.isOverlapping(index.getFirstRowIndex(page), index.getLastRowIndex(page, block.getRowCount()))) {
                    skipped++;
                }
            }
        }
        return skipped;
    }
}
