package dev.ferry.device.partition;

import dev.ferry.device.memory.DeviceBuffer;

import java.util.List;

/**
 * One column of one output partition in device memory, in Arrow's buffer order (validity, for
 * strings offsets, values); {@code lengths} are the bytes of each buffer that hold data.
 */
public record PartitionedColumn(int nullCount, List<DeviceBuffer> buffers, List<Long> lengths)
{
    public PartitionedColumn
    {
        buffers = List.copyOf(buffers);
        lengths = List.copyOf(lengths);
    }
}
