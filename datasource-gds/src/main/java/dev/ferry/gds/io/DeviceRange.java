package dev.ferry.gds.io;

import dev.ferry.device.memory.DeviceBuffer;

import static java.util.Objects.requireNonNull;

/**
 * One planned request that now lives in device memory: bytes {@code range} of the file are at
 * {@code offset} in {@code buffer} (a GDS read lands an aligned superset, so the wanted bytes may
 * start a little way in). This is the hand-off a device consumer (GPU decode, a shuffle that keeps
 * batches on the device) takes instead of the host copy; whoever holds it closes {@code buffer}.
 */
public record DeviceRange(DiskRange range, DeviceBuffer buffer, long offset)
{
    public DeviceRange
    {
        requireNonNull(range, "range is null");
        requireNonNull(buffer, "buffer is null");
        if (offset < 0 || offset + range.length() > buffer.length()) {
            throw new IllegalArgumentException(range + " at offset " + offset + " does not fit " + buffer.name());
        }
    }
}
