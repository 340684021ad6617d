package dev.ferry.gds.device;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * One batch the gds reader read, kept in device memory as Arrow-layout column buffers on {@code device}
 * of a device runtime. Owns its buffers: close it (or hand it to {@link DeviceBatchExport}, whose
 * export must be closed first) to free them.
 */
public final class DeviceBatch
        implements AutoCloseable
{
    private final int device;
    private final int rows;
    private final List<DeviceColumn> columns;
    private boolean closed;

    public DeviceBatch(int device, int rows, List<DeviceColumn> columns)
    {
        this.device = device;
        this.rows = rows;
        this.columns = List.copyOf(requireNonNull(columns, "columns is null"));
    }

    public int device()
    {
        return device;
    }

    public int rows()
    {
        return rows;
    }

    public List<DeviceColumn> columns()
    {
        return columns;
    }

    /** Device bytes the batch's buffers hold data in. */
    public long bytes()
    {
        return columns.stream().flatMap(column -> column.lengths().stream()).mapToLong(Long::longValue).sum();
    }

    @Override
    public void close()
    {
        if (closed) {
            return;
        }
        closed = true;
        columns.forEach(column -> column.buffers().forEach(buffer -> buffer.close()));
    }
}
