package dev.ferry.gds.io;

import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

import static java.util.Objects.requireNonNull;

/**
 * parquet-mr's view of a {@link ParquetDataSource}: parquet-mr parses footers and page headers and
 * decompresses, while every byte comes through the seam, from ranges planned ahead when possible.
 */
public final class SeamInputFile
        implements InputFile
{
    private final ParquetDataSource source;
    private final PrefetchedRanges prefetched;

    public SeamInputFile(ParquetDataSource source, PrefetchedRanges prefetched)
    {
        this.source = requireNonNull(source, "source is null");
        this.prefetched = requireNonNull(prefetched, "prefetched is null");
    }

    @Override
    public long getLength()
    {
        return source.size();
    }

    @Override
    public SeekableInputStream newStream()
    {
        return new SeamInputStream(source, prefetched);
    }

    @Override
    public String toString()
    {
        return source.id();
    }
}
