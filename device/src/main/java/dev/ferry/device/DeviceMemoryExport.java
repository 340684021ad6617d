package dev.ferry.device;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.device.memory.DeviceBuffer;

import java.util.concurrent.atomic.AtomicBoolean;

import static java.util.Objects.requireNonNull;

/**
 * A device buffer's raw device address, lent out for registration with a NIC (GPUDirect RDMA:
 * {@code IbvPd.regMr(long, int, int)} on a CUDA device pointer). Made only by
 * {@link DeviceRuntime#exportForRdma}, so only for the CUDA backend's own device memory.
 *
 * <p>The address is a plain {@code long}, never a pointer or buffer object: nothing here lets Java
 * read or write the bytes, which stay reachable only through a {@code DeviceStream}. The export
 * holds its own reference to the buffer, so the memory is not freed (and the address not reused
 * by another allocation) while a NIC registration may still DMA into it. Close it after the last
 * region over it is deregistered; closing it twice, or asking for the address after close, is an
 * error naming the buffer. Thread-safe.
 */
public final class DeviceMemoryExport
        implements AutoCloseable
{
    private final DeviceBuffer buffer;
    private final String backendName;
    private final long address;
    private final String bufferName;
    private final AtomicBoolean closed = new AtomicBoolean();

    DeviceMemoryExport(DeviceBuffer retainedBuffer, String backendName, long address)
    {
        this.buffer = requireNonNull(retainedBuffer, "retainedBuffer is null");
        this.backendName = requireNonNull(backendName, "backendName is null");
        if (address == 0) {
            throw new IllegalArgumentException("null device address for " + retainedBuffer.name());
        }
        this.address = address;
        // Kept, so messages after close (when the handle refuses every use) still name the buffer.
        this.bufferName = retainedBuffer.name();
    }

    /** The device address of the buffer's byte 0, for the NIC only; refused after {@link #close()}. */
    public long address()
    {
        checkOpen("read the device address of");
        return address;
    }

    public long length()
    {
        return buffer.length();
    }

    /** The ordinal of the device that holds the memory (as the backend numbers it). */
    public int device()
    {
        return buffer.location().device();
    }

    /** The backend whose memory this is ({@code cuda}). */
    public String backendName()
    {
        return backendName;
    }

    /** The exported buffer's name, for messages. */
    public String bufferName()
    {
        return bufferName;
    }

    public boolean isOpen()
    {
        return !closed.get();
    }

    /** Drops the export's reference; the memory is freed once every other handle is closed too. */
    @Override
    public void close()
    {
        if (!closed.compareAndSet(false, true)) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, "Double close of the RDMA export of " + bufferName);
        }
        buffer.close();
    }

    private void checkOpen(String operation)
    {
        if (closed.get()) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, "Use after close: cannot " + operation + " the RDMA export of " + bufferName + ", it was already closed");
        }
    }

    @Override
    public String toString()
    {
        return "RDMA export of " + bufferName + " on backend '" + backendName + "' (" + buffer.length() + " bytes on device " + device() + ")"
                + (closed.get() ? " (closed)" : "");
    }
}
