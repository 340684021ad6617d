package dev.ferry.gds.decode;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.hadoop.metadata.ColumnPath;

import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * What the page checks of one row group need to know: the file (for errors), where each column
 * chunk starts, and the bound on what one page may decode to ({@code spark.ferry.gds.io.maxPageBytes}).
 */
public final class PageChecks
{
    private final String file;
    private final Map<ColumnPath, Long> chunkOffsets;
    private final long maxPageBytes;

    public PageChecks(String file, Map<ColumnPath, Long> chunkOffsets, long maxPageBytes)
    {
        this.file = requireNonNull(file, "file is null");
        this.chunkOffsets = Map.copyOf(chunkOffsets);
        if (maxPageBytes <= 0) {
            throw new IllegalArgumentException("maxPageBytes must be positive, got " + maxPageBytes);
        }
        this.maxPageBytes = maxPageBytes;
    }

    public String file()
    {
        return file;
    }

    long maxPageBytes()
    {
        return maxPageBytes;
    }

    /** {@code pages} of {@code descriptor}'s chunk, checked page by page before any decoder sees them. */
    PageReader wrap(ColumnDescriptor descriptor, PageReader pages)
    {
        ColumnPath path = ColumnPath.get(descriptor.getPath());
        return new CheckedPageReader(pages, descriptor, this, path.toDotString(), chunkOffsets.getOrDefault(path, -1L));
    }
}
