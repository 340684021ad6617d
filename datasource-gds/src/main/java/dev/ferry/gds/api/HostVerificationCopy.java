package dev.ferry.gds.api;

import dev.ferry.gds.device.DeviceBatchExport;

import static java.util.Objects.requireNonNull;

/**
 * A device batch's columns copied back to host memory for a check ({@link ExportedDeviceBatch#copyToHostForVerification()}):
 * an {@code ARROW_DEVICE_CPU} {@code struct ArrowDeviceArray} at {@link #address()}, laid out as the
 * consumer's array is, over host buffers. Closing it releases the array and frees the host copies.
 */
public final class HostVerificationCopy
        implements AutoCloseable
{
    private final DeviceBatchExport copy;
    private final long bytes;

    HostVerificationCopy(DeviceBatchExport copy, long bytes)
    {
        this.copy = requireNonNull(copy, "copy is null");
        this.bytes = bytes;
    }

    /** The address of the host {@code struct ArrowDeviceArray}. */
    public long address()
    {
        return copy.address();
    }

    /** Bytes of column data copied from device to host memory. */
    public long bytes()
    {
        return bytes;
    }

    @Override
    public void close()
    {
        copy.close();
    }
}
