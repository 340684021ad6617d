package dev.ferry.gds.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.concurrent.ExecutorService;

import static java.util.Objects.requireNonNull;

/**
 * The HOST route: positional reads with a {@link FileChannel}, which are thread-safe, so the slices
 * of one plan run in parallel without seeking. Reads go through the page cache, which is what a
 * host-memory scan of possibly hot files wants.
 */
public final class HostParquetDataSource
        extends AbstractParquetDataSource
{
    private final FileChannel channel;

    private HostParquetDataSource(String id, FileChannel channel, long size, ReadPlanning planning, Optional<ExecutorService> parallelReads)
    {
        super(id, size, planning, parallelReads);
        this.channel = requireNonNull(channel, "channel is null");
    }

    public static HostParquetDataSource open(Path path, String id, ReadPlanning planning, Optional<ExecutorService> parallelReads)
            throws IOException
    {
        FileChannel channel = FileChannel.open(path, StandardOpenOption.READ);
        try {
            return new HostParquetDataSource(id, channel, channel.size(), planning, parallelReads);
        }
        catch (RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    @Override
    public IoRoute route()
    {
        return IoRoute.HOST;
    }

    @Override
    protected void readInternal(long position, ByteBuffer target)
            throws IOException
    {
        readFully(channel, position, target);
    }

    @Override
    public void close()
            throws IOException
    {
        channel.close();
    }
}
