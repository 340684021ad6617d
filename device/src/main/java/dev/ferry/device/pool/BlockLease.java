package dev.ferry.device.pool;

import dev.ferry.device.memory.DeviceBuffer;

import static java.util.Objects.requireNonNull;

/**
 * A device-resident stored block lent out without a copy: {@link #buffer()} is a retained handle on
 * the block's own device memory. While any lease on a block is open the store does not spill it; if
 * the block is released (task, stage or shuffle end) meanwhile, the memory stays valid until the
 * lease closes. Close exactly what you borrow; closing twice is a no-op.
 */
public final class BlockLease
        implements AutoCloseable
{
    private final StoredBlock block;
    private final DeviceBuffer buffer;
    private final Runnable onClose;
    private boolean closed;

    BlockLease(StoredBlock block, DeviceBuffer buffer, Runnable onClose)
    {
        this.block = requireNonNull(block, "block is null");
        this.buffer = requireNonNull(buffer, "buffer is null");
        this.onClose = requireNonNull(onClose, "onClose is null");
    }

    public StoredBlock block()
    {
        return block;
    }

    /** The block's bytes in device memory, valid until this lease closes; do not close it yourself. */
    public synchronized DeviceBuffer buffer()
    {
        if (closed) {
            throw new IllegalStateException("Lease on " + block + " is closed");
        }
        return buffer;
    }

    public long length()
    {
        return buffer.length();
    }

    public synchronized boolean isOpen()
    {
        return !closed;
    }

    @Override
    public void close()
    {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        try {
            buffer.close();
        }
        finally {
            onClose.run();
        }
    }

    @Override
    public String toString()
    {
        return "lease on " + block + " (" + buffer.length() + " bytes on the device)";
    }
}
