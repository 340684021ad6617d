package dev.ferry.gds.device;

import dev.ferry.device.memory.DeviceBuffer;
import org.apache.spark.sql.types.DataType;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * One column of a {@link DeviceBatch} in Arrow's layout, in device memory: the validity bitmap
 * (bit i set = row i valid, least significant bit first), for strings the int32 offsets, then the
 * values. {@code lengths} are the bytes of each buffer that hold data (a device allocation may be
 * larger, rounded up to 8 bytes).
 */
public record DeviceColumn(String name, DataType type, int nullCount, List<DeviceBuffer> buffers, List<Long> lengths)
{
    public DeviceColumn
    {
        requireNonNull(name, "name is null");
        requireNonNull(type, "type is null");
        buffers = List.copyOf(requireNonNull(buffers, "buffers is null"));
        lengths = List.copyOf(requireNonNull(lengths, "lengths is null"));
        if (buffers.size() != lengths.size()) {
            throw new IllegalArgumentException(buffers.size() + " buffers but " + lengths.size() + " lengths for column " + name);
        }
    }
}
