package dev.ferry.gds.io;

import dev.ferry.device.memory.DeviceBuffer;

import java.nio.ByteBuffer;

import static java.util.Objects.requireNonNull;

/**
 * One column chunk a device route read into device memory and left there
 * ({@link DeviceParquetDataSource#readResident}): bytes {@link #range()} of the file at
 * {@link #offset()} in {@link #buffer()}. The holder closes it; a decoder that gives the chunk back
 * to the CPU takes one counted copy down ({@link #copyToHost}).
 */
public final class ResidentChunk
        implements AutoCloseable
{
    private final DeviceParquetDataSource source;
    private final DeviceRange range;
    private boolean closed;

    ResidentChunk(DeviceParquetDataSource source, DeviceRange range)
    {
        this.source = requireNonNull(source, "source is null");
        this.range = requireNonNull(range, "range is null");
    }

    public DiskRange range()
    {
        return range.range();
    }

    public DeviceBuffer buffer()
    {
        return range.buffer();
    }

    /** Where the chunk's first byte sits in {@link #buffer()}. */
    public long offset()
    {
        return range.offset();
    }

    /** The chunk's bytes in host memory, counted as row data copied back ({@link ReadCounters#plannedDeviceToHostBytes()}). */
    public ByteBuffer copyToHost()
    {
        return source.copyToHost(range);
    }

    @Override
    public void close()
    {
        if (!closed) {
            closed = true;
            range.buffer().close();
        }
    }
}
