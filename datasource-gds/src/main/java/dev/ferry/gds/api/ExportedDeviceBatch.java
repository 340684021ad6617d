package dev.ferry.gds.api;

import dev.ferry.device.DeviceRuntime;
import dev.ferry.gds.device.ArrowDeviceArrayLayout;
import dev.ferry.gds.device.DeviceBatch;
import dev.ferry.gds.device.DeviceBatchExport;

import static java.util.Objects.requireNonNull;

/**
 * One device batch handed to a consumer as an Arrow C Device Data Interface {@code struct
 * ArrowDeviceArray} at {@link #address()}: a struct-typed parent with one child per column, each
 * with the real {@code release} callback. On the {@code cuda} backend the buffer pointers are device
 * addresses ({@code ARROW_DEVICE_CUDA}, {@code device_id} the GPU); on backends that lend no device
 * address (simulated, host) the columns are copied back to host memory for the consumer and handed
 * over as {@code ARROW_DEVICE_CPU} ({@link #reason()} says so, and the copies are counted in
 * {@link PartitionResult#exportHostCopyBytes()}). A consumer may call {@code release} on the array
 * when done; either way the batch's device memory is freed by the next {@link DevicePartition#nextBatch}
 * or when the partition's function returns, so a consumer that keeps data longer copies it.
 */
public final class ExportedDeviceBatch
        implements AutoCloseable
{
    private final DeviceRuntime runtime;
    private final DeviceBatch batch;
    private final DeviceBatchExport export;
    private boolean closed;

    ExportedDeviceBatch(DeviceRuntime runtime, DeviceBatch batch, DeviceBatchExport export)
    {
        this.runtime = requireNonNull(runtime, "runtime is null");
        this.batch = requireNonNull(batch, "batch is null");
        this.export = requireNonNull(export, "export is null");
    }

    /** The address of the {@code struct ArrowDeviceArray}. */
    public long address()
    {
        checkOpen();
        return export.address();
    }

    /** {@code ARROW_DEVICE_CUDA} (2) or {@code ARROW_DEVICE_CPU} (1), as the struct says. */
    public int deviceType()
    {
        return export.deviceType();
    }

    public String deviceTypeName()
    {
        return ArrowDeviceArrayLayout.deviceTypeName(export.deviceType());
    }

    /** The GPU ordinal for {@code ARROW_DEVICE_CUDA}, -1 for a host copy. */
    public long deviceId()
    {
        return export.deviceId();
    }

    /** Why the batch was handed over with this device type. */
    public String reason()
    {
        return export.reason();
    }

    public int rows()
    {
        return batch.rows();
    }

    /** Bytes of decoded column data the batch holds in device memory. */
    public long deviceBytes()
    {
        return batch.bytes();
    }

    /** Whether the consumer (or {@link #close()}) has called the array's release callback. */
    public boolean released()
    {
        return export.released();
    }

    /**
     * For a check, not for the consumer's path: copies the batch's columns back from device memory to host
     * memory (one D->H per buffer through the device runtime, on every backend, whatever the consumer was
     * handed) and returns them as an {@code ARROW_DEVICE_CPU} array in the same layout, so a checker reads
     * batches whose own array holds device pointers. The copy is the caller's to close; its bytes are
     * {@link #deviceBytes()}, to be counted as verification bytes apart from the consumer's.
     */
    public HostVerificationCopy copyToHostForVerification()
    {
        checkOpen();
        return new HostVerificationCopy(DeviceBatchExport.verificationCopy(runtime, batch), batch.bytes());
    }

    private void checkOpen()
    {
        if (closed) {
            throw new IllegalStateException("This device batch was freed: batches are valid until the next nextBatch() or the end of the partition's function");
        }
    }

    /** Releases the array if the consumer did not, then frees the batch's device memory. */
    @Override
    public void close()
    {
        if (closed) {
            return;
        }
        closed = true;
        try {
            export.close();
        }
        finally {
            batch.close();
        }
    }
}
