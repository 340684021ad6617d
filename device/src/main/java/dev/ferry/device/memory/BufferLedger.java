package dev.ferry.device.memory;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import static java.util.Objects.requireNonNull;

/**
 * The reference count of one {@link NativeMemory}: every open {@link DeviceBuffer} handle over
 * the memory counts once. When the count drops to zero the owning allocator gets its bytes back
 * and the memory is freed, exactly once.
 */
public final class BufferLedger
{
    private final long id;
    private final NativeMemory memory;
    private final AtomicInteger openHandles = new AtomicInteger();
    private final Optional<Throwable> allocationSite;
    // Changed only under the allocator tree's lock (ownership transfer); read for messages.
    private volatile BufferAllocator owner;

    BufferLedger(long id, NativeMemory memory, BufferAllocator owner, boolean recordAllocationSite)
    {
        this.id = id;
        this.memory = requireNonNull(memory, "memory is null");
        this.owner = requireNonNull(owner, "owner is null");
        this.allocationSite = recordAllocationSite ? Optional.of(new Throwable("allocated here")) : Optional.empty();
    }

    public long id()
    {
        return id;
    }

    public NativeMemory memory()
    {
        return memory;
    }

    public BufferAllocator owner()
    {
        return owner;
    }

    public int openHandles()
    {
        return openHandles.get();
    }

    Optional<Throwable> allocationSite()
    {
        return allocationSite;
    }

    void setOwner(BufferAllocator owner)
    {
        this.owner = requireNonNull(owner, "owner is null");
    }

    DeviceBuffer newHandle(long offset, long length)
    {
        int before = openHandles.getAndIncrement();
        if (before < 0) {
            openHandles.decrementAndGet();
            throw new IllegalStateException("ledger " + id + " was already released");
        }
        return new DeviceBuffer(this, offset, length);
    }

    void releaseHandle()
    {
        int after = openHandles.decrementAndGet();
        if (after > 0) {
            return;
        }
        if (after < 0) {
            throw new IllegalStateException("ledger " + id + " released more often than retained");
        }
        // Accounting first, so a failing free cannot leave bytes counted that no buffer owns.
        owner.releaseLedger(this);
        memory.freeFromLedger();
    }

    String describe()
    {
        return "ledger " + id + " (" + memory.size() + " bytes, " + memory.describe() + ", " + openHandles.get() + " open handle(s))";
    }
}
