package dev.ferry.gds.io;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;

/** An in-memory file that records every request it serves. */
public final class TestingParquetDataSource
        extends AbstractParquetDataSource
{
    private final byte[] data;
    private final List<DiskRange> requests = new CopyOnWriteArrayList<>();

    public TestingParquetDataSource(byte[] data, ReadPlanning planning, Optional<ExecutorService> parallelReads)
    {
        super("memory:test", data.length, planning, parallelReads);
        this.data = data.clone();
    }

    @Override
    public IoRoute route()
    {
        return IoRoute.HOST;
    }

    @Override
    protected void readInternal(long position, ByteBuffer target)
    {
        requests.add(new DiskRange(position, target.remaining()));
        target.put(data, Math.toIntExact(position), target.remaining());
    }

    public List<DiskRange> requests()
    {
        return List.copyOf(requests);
    }

    @Override
    public void close()
    {
    }
}
