package dev.ferry.gds.decode;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.hadoop.metadata.ColumnPath;

import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * What the page checks of one row group need to know: the file (for errors), where each column
 * chunk lies, the bound on what one page may decode to ({@code spark.ferry.gds.io.maxPageBytes}),
 * and how to find a page's offset when an error names it.
 */
public final class PageChecks
{
    /** Finds a data page's offset in the file for an error message; -1 where it cannot tell. */
    public interface PageLocator
    {
        PageLocator UNKNOWN = (chunkStart, chunkSize, dataPage) -> -1;

        long dataPageOffset(long chunkStart, long chunkSize, int dataPage);
    }

    private final String file;
    // {start, total size[, total uncompressed size]} of each column chunk of the row group, as the footer gives them.
    private final Map<ColumnPath, long[]> chunks;
    private final long maxPageBytes;
    private final PageLocator locator;

    public PageChecks(String file, Map<ColumnPath, long[]> chunks, long maxPageBytes, PageLocator locator)
    {
        this.file = requireNonNull(file, "file is null");
        this.chunks = Map.copyOf(chunks);
        this.locator = requireNonNull(locator, "locator is null");
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
    CheckedPageReader wrap(ColumnDescriptor descriptor, PageReader pages)
    {
        ColumnPath path = ColumnPath.get(descriptor.getPath());
        long[] chunk = chunks.getOrDefault(path, new long[] {-1, 0});
        return new CheckedPageReader(pages, descriptor, this, path.toDotString(), chunk[0], chunk[1]);
    }

    /** What the footer says {@code descriptor}'s chunk decodes to, page headers included; -1 where it is not known. */
    long footerUncompressedBytes(ColumnDescriptor descriptor)
    {
        long[] chunk = chunks.get(ColumnPath.get(descriptor.getPath()));
        return chunk == null || chunk.length < 3 ? -1 : chunk[2];
    }

    long dataPageOffset(long chunkStart, long chunkSize, int dataPage)
    {
        return chunkStart < 0 ? -1 : locator.dataPageOffset(chunkStart, chunkSize, dataPage);
    }
}
