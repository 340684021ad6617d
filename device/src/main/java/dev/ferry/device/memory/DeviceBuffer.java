package dev.ferry.device.memory;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static java.util.Objects.requireNonNull;

/**
 * A handle on a byte range of device (or pinned host) memory. Like Arrow's ArrowBuf, the handle
 * does not own the memory; its {@link BufferLedger} does, and every open handle counts once.
 * Unlike ArrowBuf, each handle is closed exactly once: {@link #retain()} and {@link #slice} return
 * new handles, a second {@link #close()} is an error, and so is any use after close.
 *
 * <p>There are deliberately no get/set accessors: device memory is not addressable from the
 * host, so bytes move only through a {@code DeviceStream}.
 */
public final class DeviceBuffer
        implements AutoCloseable
{
    private static final AtomicLong NEXT_HANDLE_ID = new AtomicLong();

    private final BufferLedger ledger;
    private final long offset;
    private final long length;
    private final long handleId;
    private final AtomicBoolean closed = new AtomicBoolean();

    DeviceBuffer(BufferLedger ledger, long offset, long length)
    {
        this.ledger = requireNonNull(ledger, "ledger is null");
        this.offset = offset;
        this.length = length;
        this.handleId = NEXT_HANDLE_ID.incrementAndGet();
    }

    public long length()
    {
        return length;
    }

    public MemoryLocation location()
    {
        return ledger.memory().location();
    }

    public boolean isOpen()
    {
        return !closed.get();
    }

    public BufferAllocator allocator()
    {
        return ledger.owner();
    }

    public BufferLedger ledger()
    {
        return ledger;
    }

    /** A name for messages: ledger and handle ids, range, memory and owner. */
    public String name()
    {
        return "buffer#" + ledger.id() + "." + handleId + " [" + offset + ", +" + length + ") of "
                + ledger.memory().describe() + " owned by '" + ledger.owner().name() + "'";
    }

    /** A new handle on the same bytes; the memory stays allocated until both are closed. */
    public DeviceBuffer retain()
    {
        checkOpen("retain");
        return ledger.newHandle(offset, length);
    }

    /** A new handle on {@code [index, index + count)} of this buffer, holding its own reference. */
    public DeviceBuffer slice(long index, long count)
    {
        checkRange("slice", index, count);
        return ledger.newHandle(offset + index, count);
    }

    /**
     * Moves the accounting of the whole allocation to {@code target} (same tree only). The move
     * always happens; the result says whether {@code target} is still within its limit, as Arrow's
     * {@code getAllocationFit()} does, so the caller decides whether to spill.
     */
    public boolean transferOwnership(BufferAllocator target)
    {
        checkOpen("transfer");
        return ledger.owner().transferLedger(ledger, requireNonNull(target, "target is null"));
    }

    /**
     * Checks that {@code [index, index + count)} lies inside this open buffer; every copy and read
     * calls this before a backend touches memory, so a bad range never reaches native code.
     */
    public void checkRange(String operation, long index, long count)
    {
        checkOpen(operation);
        if (index < 0 || count < 0 || index > length || count > length - index) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, "Out of range: cannot " + operation + " [" + index + ", +" + count
                    + ") of " + name() + " whose length is " + length);
        }
    }

    public void checkOpen(String operation)
    {
        if (closed.get()) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, "Use after close: cannot " + operation + " " + name() + ", it was already closed");
        }
    }

    /** The backing memory, for backends; checked open. */
    public NativeMemory memory()
    {
        checkOpen("access");
        return ledger.memory();
    }

    /** Where this handle's byte 0 lies inside {@link #memory()}. */
    public long memoryOffset()
    {
        return offset;
    }

    @Override
    public void close()
    {
        if (!closed.compareAndSet(false, true)) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, "Double close of " + name());
        }
        ledger.releaseHandle();
    }

    @Override
    public String toString()
    {
        return name() + (closed.get() ? " (closed)" : "");
    }
}
