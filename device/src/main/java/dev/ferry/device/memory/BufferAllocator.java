package dev.ferry.device.memory;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static java.util.Objects.requireNonNull;

/**
 * A named node in a tree of allocators for one memory location, after Arrow's BaseAllocator.
 * The root is capped at what the device may use; children (per task, shuffle, reader) draw bytes
 * from their parent under their own limit. Reservation is all-or-nothing along the chain, a
 * failure names every allocator on it, and {@link #close()} reports leaked buffers and children.
 *
 * <p>Thread-safe: all accounting of one tree happens under the root's lock, and listeners are
 * called outside it.
 */
public final class BufferAllocator
        implements AutoCloseable
{
    /** Makes the physical memory for a root; backends implement it. */
    @FunctionalInterface
    public interface MemorySource
    {
        /** Allocates {@code size} bytes or throws {@link DeviceOutOfMemoryException}. */
        NativeMemory allocate(MemoryLocation location, long size);

        /**
         * Bytes of buffers this tree freed that the source could not give back yet (another
         * process still maps them): they still occupy the device, so the root counts them
         * against its limit until the source reclaims them.
         */
        default long heldAfterFree(MemoryLocation location)
        {
            return 0;
        }

        /** Gives back what was held after free and is no longer needed; the bytes reclaimed. */
        default long reclaim(MemoryLocation location)
        {
            return 0;
        }
    }

    // A spill hook may free memory that another thread grabs first; retry a few times, not forever.
    private static final int MAX_LISTENER_RETRIES = 8;
    private static final AtomicLong NEXT_LEDGER_ID = new AtomicLong();

    private final String name;
    private final MemoryLocation location;
    private final BufferAllocator parent;
    private final BufferAllocator root;
    private final MemorySource source;
    private final AllocationListener listener;
    private final boolean recordAllocationSites;
    private final long limit;

    // Guarded by root.
    private long allocated;
    private long peak;
    private final Map<Long, BufferLedger> ledgers = new LinkedHashMap<>();
    private final List<BufferAllocator> children = new ArrayList<>();
    private boolean closed;

    private BufferAllocator(String name, MemoryLocation location, BufferAllocator parent, MemorySource source, AllocationListener listener, boolean recordAllocationSites, long limit)
    {
        this.name = requireNonNull(name, "name is null");
        this.location = requireNonNull(location, "location is null");
        this.parent = parent;
        this.root = parent == null ? this : parent.root;
        this.source = requireNonNull(source, "source is null");
        this.listener = requireNonNull(listener, "listener is null");
        this.recordAllocationSites = recordAllocationSites;
        if (limit < 0) {
            throw new IllegalArgumentException("limit of allocator '" + name + "' must not be negative: " + limit);
        }
        this.limit = limit;
    }

    /**
     * A root allocator for {@code location}. With {@code recordAllocationSites}, each buffer
     * remembers its allocation stack for the leak report (tests and debugging only).
     */
    public static BufferAllocator newRoot(String name, MemoryLocation location, long limit, MemorySource source, AllocationListener listener, boolean recordAllocationSites)
    {
        return new BufferAllocator(name, location, null, source, listener, recordAllocationSites, limit);
    }

    public BufferAllocator newChildAllocator(String childName, long childLimit)
    {
        return newChildAllocator(childName, childLimit, AllocationListener.NOOP);
    }

    public BufferAllocator newChildAllocator(String childName, long childLimit, AllocationListener childListener)
    {
        synchronized (root) {
            checkOpen();
            BufferAllocator child = new BufferAllocator(childName, location, this, source, childListener, recordAllocationSites, childLimit);
            children.add(child);
            return child;
        }
    }

    /**
     * Allocates {@code size} bytes. When they do not fit, the listeners from this allocator up to
     * the root are asked to free memory (spill) and the allocation is retried.
     *
     * @throws DeviceOutOfMemoryException naming each allocator on the chain
     */
    public DeviceBuffer allocate(long size)
    {
        if (size <= 0) {
            throw new IllegalArgumentException("Allocation size must be positive, got " + size + " from allocator '" + name + "'");
        }
        for (int attempt = 0; ; attempt++) {
            String failure = tryReserve(size);
            if (failure == null) {
                boolean success = false;
                try {
                    NativeMemory memory = source.allocate(location, size);
                    DeviceBuffer buffer = register(memory);
                    success = true;
                    return buffer;
                }
                catch (DeviceOutOfMemoryException e) {
                    failure = e.getMessage();
                }
                finally {
                    if (!success) {
                        unreserve(size);
                    }
                }
            }
            // Under pressure, memory importers have let go of comes back before anything spills.
            if (source.reclaim(location) > 0) {
                continue;
            }
            if (attempt >= MAX_LISTENER_RETRIES || !askListenersToFree(size, failure)) {
                throw new DeviceOutOfMemoryException(failure, size);
            }
        }
    }

    /**
     * Accounts memory this allocator did not make (a mapping of another process's exported
     * buffer), like Arrow's wrapForeignAllocation. The memory is freed when the last handle closes.
     */
    public DeviceBuffer wrapForeignMemory(NativeMemory memory)
    {
        requireNonNull(memory, "memory is null");
        if (!memory.location().equals(location)) {
            throw new IllegalArgumentException("Cannot account " + memory.describe() + " on " + memory.location() + " in allocator '" + name + "' for " + location);
        }
        String failure = tryReserve(memory.size());
        if (failure != null) {
            throw new DeviceOutOfMemoryException(failure, memory.size());
        }
        boolean success = false;
        try {
            DeviceBuffer buffer = register(memory);
            success = true;
            return buffer;
        }
        finally {
            if (!success) {
                unreserve(memory.size());
            }
        }
    }

    private DeviceBuffer register(NativeMemory memory)
    {
        BufferLedger ledger = new BufferLedger(NEXT_LEDGER_ID.incrementAndGet(), memory, this, recordAllocationSites);
        synchronized (root) {
            ledgers.put(ledger.id(), ledger);
        }
        return ledger.newHandle(0, memory.size());
    }

    private boolean askListenersToFree(long size, String details)
    {
        for (BufferAllocator node = this; node != null; node = node.parent) {
            if (node.listener.onFailedAllocation(this, size, details)) {
                return true;
            }
        }
        return false;
    }

    /** Reserves along the chain, or returns why not (and reserves nothing). */
    private String tryReserve(long size)
    {
        synchronized (root) {
            checkOpen();
            long held = source.heldAfterFree(location);
            for (BufferAllocator node = this; node != null; node = node.parent) {
                if (node.allocated + (node == root ? held : 0) + size > node.limit) {
                    return failureDetails(size, node);
                }
            }
            for (BufferAllocator node = this; node != null; node = node.parent) {
                node.allocated += size;
                node.peak = Math.max(node.peak, node.allocated);
            }
            return null;
        }
    }

    private void unreserve(long size)
    {
        synchronized (root) {
            for (BufferAllocator node = this; node != null; node = node.parent) {
                node.allocated -= size;
            }
        }
        for (BufferAllocator node = this; node != null; node = node.parent) {
            node.listener.onRelease(this, size);
        }
    }

    private String failureDetails(long size, BufferAllocator failed)
    {
        StringBuilder details = new StringBuilder("Unable to allocate ").append(size).append(" bytes on ").append(location).append(':');
        long held = source.heldAfterFree(location);
        for (BufferAllocator node = this; node != null; node = node.parent) {
            details.append("\n  allocator '").append(node.name).append("' limit ").append(node.limit)
                    .append(", allocated ").append(node.allocated).append(", peak ").append(node.peak)
                    .append(node == root && held > 0 ? ", held by IPC importers after free " + held : "")
                    .append(node == failed ? "  <-- exceeds its limit" : "");
        }
        return details.toString();
    }

    void releaseLedger(BufferLedger ledger)
    {
        BufferAllocator owner;
        synchronized (root) {
            owner = ledger.owner();
            if (owner.ledgers.remove(ledger.id()) == null) {
                throw new IllegalStateException("ledger " + ledger.id() + " is not registered with allocator '" + owner.name + "'");
            }
        }
        owner.unreserve(ledger.memory().size());
    }

    boolean transferLedger(BufferLedger ledger, BufferAllocator target)
    {
        long size = ledger.memory().size();
        boolean fits = true;
        synchronized (root) {
            if (target.root != root) {
                throw new IllegalArgumentException("Cannot transfer ledger " + ledger.id() + " from allocator '" + name + "' to '" + target.name
                        + "': they belong to different roots ('" + root.name + "' and '" + target.root.name + "')");
            }
            target.checkOpen();
            if (ledgers.remove(ledger.id()) == null) {
                throw new IllegalStateException("ledger " + ledger.id() + " is not owned by allocator '" + name + "'");
            }
            // Forced reservation: ownership moves even over the limit, and the caller learns it.
            for (BufferAllocator node = target; node != null; node = node.parent) {
                node.allocated += size;
                node.peak = Math.max(node.peak, node.allocated);
                fits &= node.allocated <= node.limit;
            }
            for (BufferAllocator node = this; node != null; node = node.parent) {
                node.allocated -= size;
            }
            target.ledgers.put(ledger.id(), ledger);
            ledger.setOwner(target);
        }
        for (BufferAllocator node = this; node != null; node = node.parent) {
            node.listener.onRelease(this, size);
        }
        return fits;
    }

    public String name()
    {
        return name;
    }

    public MemoryLocation location()
    {
        return location;
    }

    public long limit()
    {
        return limit;
    }

    public long allocatedBytes()
    {
        synchronized (root) {
            return allocated;
        }
    }

    public long peakBytes()
    {
        synchronized (root) {
            return peak;
        }
    }

    /**
     * What this tree really occupies on its location: the root's live buffers plus what was freed
     * but is still held by other processes (see {@link MemorySource#heldAfterFree}).
     */
    public long usedBytes()
    {
        synchronized (root) {
            return root.allocated + source.heldAfterFree(location);
        }
    }

    /** Bytes this allocator could still take, considering every ancestor's limit. */
    public long headroom()
    {
        synchronized (root) {
            long held = source.heldAfterFree(location);
            long headroom = Long.MAX_VALUE;
            for (BufferAllocator node = this; node != null; node = node.parent) {
                headroom = Math.min(headroom, node.limit - node.allocated - (node == root ? held : 0));
            }
            return Math.max(0, headroom);
        }
    }

    public int openBufferCount()
    {
        synchronized (root) {
            return ledgers.size();
        }
    }

    /** Checks the books: this allocator's count equals its buffers plus its children's counts. */
    public void verify()
    {
        synchronized (root) {
            verifyLocked();
        }
    }

    private void verifyLocked()
    {
        long expected = 0;
        for (BufferLedger ledger : ledgers.values()) {
            expected += ledger.memory().size();
        }
        for (BufferAllocator child : children) {
            child.verifyLocked();
            expected += child.allocated;
        }
        if (expected != allocated) {
            throw new IllegalStateException("Allocator '" + name + "' accounts " + allocated + " bytes but its buffers and children hold " + expected);
        }
    }

    /**
     * Closes this allocator. Idempotent. Throws {@link IllegalStateException} with a leak report
     * when buffers or child allocators are still open; the leaked memory stays allocated, since
     * freeing memory a caller may still use would turn a leak into corruption.
     */
    @Override
    public void close()
    {
        String report;
        synchronized (root) {
            if (closed) {
                return;
            }
            closed = true;
            report = leakReportLocked();
            if (parent != null) {
                parent.children.remove(this);
            }
        }
        if (report != null) {
            throw new IllegalStateException(report);
        }
    }

    private String leakReportLocked()
    {
        List<BufferAllocator> openChildren = new ArrayList<>();
        for (BufferAllocator child : children) {
            if (!child.closed) {
                openChildren.add(child);
            }
        }
        if (ledgers.isEmpty() && openChildren.isEmpty() && allocated == 0) {
            return null;
        }
        StringBuilder report = new StringBuilder("Memory was leaked by allocator '").append(name).append("' on ").append(location)
                .append(": allocated ").append(allocated).append(", peak ").append(peak).append(", limit ").append(limit);
        for (BufferLedger ledger : ledgers.values()) {
            report.append("\n  leaked ").append(ledger.describe());
            ledger.allocationSite().ifPresent(site -> report.append('\n').append(stackText(site)));
        }
        for (BufferAllocator child : openChildren) {
            report.append("\n  child allocator '").append(child.name).append("' still open with ").append(child.allocated).append(" bytes");
        }
        return report.toString();
    }

    private static String stackText(Throwable site)
    {
        StringWriter text = new StringWriter();
        site.printStackTrace(new PrintWriter(text));
        return text.toString().lines().limit(12).map(line -> "      " + line).reduce((a, b) -> a + "\n" + b).orElse("");
    }

    private void checkOpen()
    {
        if (closed) {
            throw new IllegalStateException("Allocator '" + name + "' is closed");
        }
    }

    @Override
    public String toString()
    {
        return "allocator '" + name + "' on " + location;
    }
}
