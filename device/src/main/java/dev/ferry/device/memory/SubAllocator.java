package dev.ferry.device.memory;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.BooleanSupplier;

import static java.util.Objects.requireNonNull;

/**
 * Buffers carved out of a few large slabs, so that a buffer costs no driver call: {@code cudaMalloc}
 * and {@code cudaFree} per shuffle block were a driver round trip each, and {@code cudaFree}
 * synchronizes the whole device. First-fit within each slab, aligned to {@code alignment}.
 *
 * <p>One home for the deferred frees of every backend: a buffer freed while another process still
 * maps it (an IPC importer) is parked, its bytes still counted as in use, until the holder check
 * passes; parked ranges are re-checked on every allocation and by {@link #reclaim()} (which the
 * allocator calls under memory pressure). The simulated backend's shared-memory arena is a fixed
 * sub-allocator of one slab; the cuda backend's device pool grows slabs from {@code cudaMalloc} up
 * to its capacity, so both account the same way and the simulated contract tests cover the books.
 *
 * <p>Books, in requested bytes: {@link #liveBytes()} (buffers not yet freed) plus
 * {@link #pendingBytes()} (freed, still held by importers) is {@link #usedBytes()}; alignment slack
 * and free slab space are outside it. Thread-safe.
 *
 * @param <S> what a slab is to its backend (a device pointer, a mapping)
 */
public final class SubAllocator<S>
        implements AutoCloseable
{
    private static final Logger log = LoggerFactory.getLogger(SubAllocator.class);

    /** Makes and frees slabs; only growing sub-allocators have one. */
    public interface SlabSource<S>
    {
        /** A slab of {@code size} bytes, or {@link DeviceOutOfMemoryException}. */
        S allocate(long size);

        void free(S slab);
    }

    /** One buffer's range of a slab. */
    public static final class Allocation<S>
    {
        private final Slab<S> slab;
        private final long offset;
        private final long size;
        private final long reserved;
        private boolean freed;

        private Allocation(Slab<S> slab, long offset, long size, long reserved)
        {
            this.slab = slab;
            this.offset = offset;
            this.size = size;
            this.reserved = reserved;
        }

        public S slab()
        {
            return slab.handle;
        }

        /** The slab's number in its sub-allocator, for messages. */
        public int slabNumber()
        {
            return slab.number;
        }

        public long slabSize()
        {
            return slab.space.capacity();
        }

        /**
         * Runs {@code hook} once, just before this buffer's slab is given back to its source (or,
         * for a slab its owner frees, when the sub-allocator closes): what is registered for the
         * whole slab (a NIC registration) is released while the memory still exists. Hooks run
         * under the sub-allocator's lock and must not call back into it.
         */
        public void onSlabReleased(Runnable hook)
        {
            slab.addReleaseHook(requireNonNull(hook, "hook is null"));
        }

        /** Where the buffer starts in its slab. */
        public long offset()
        {
            return offset;
        }

        /** The requested size. */
        public long size()
        {
            return size;
        }
    }

    private static final class Slab<S>
    {
        final S handle;
        final int number;
        final RangeSpace space;

        // Guarded by itself; run and cleared once, when the slab is released.
        private final List<Runnable> releaseHooks = new ArrayList<>();

        Slab(S handle, int number, long size)
        {
            this.handle = handle;
            this.number = number;
            this.space = new RangeSpace(size);
        }

        void addReleaseHook(Runnable hook)
        {
            synchronized (releaseHooks) {
                releaseHooks.add(hook);
            }
        }

        /** Runs the release hooks once; one that fails is logged and the rest still run. */
        void runReleaseHooks(String label)
        {
            List<Runnable> hooks;
            synchronized (releaseHooks) {
                hooks = new ArrayList<>(releaseHooks);
                releaseHooks.clear();
            }
            for (Runnable hook : hooks) {
                try {
                    hook.run();
                }
                catch (RuntimeException e) {
                    log.warn("{}: a release hook of slab {} failed: {}", label, number, e.getMessage(), e);
                }
            }
        }
    }

    private record Parked<S>(Allocation<S> allocation, BooleanSupplier holdersGone) {}

    private final String label;
    private final long alignment;
    private final long slabSize;
    private final long capacity;
    private final SlabSource<S> source;
    private final List<Slab<S>> slabs = new ArrayList<>();
    private final List<Parked<S>> parked = new ArrayList<>();
    private int nextSlabNumber;
    private long slabBytes;
    private long liveBytes;
    private long pendingBytes;
    private long deferredFrees;
    private long reclaimedFrees;
    private boolean closed;

    private SubAllocator(String label, long alignment, long slabSize, long capacity, SlabSource<S> source)
    {
        this.label = requireNonNull(label, "label is null");
        if (alignment <= 0 || Long.bitCount(alignment) != 1) {
            throw new IllegalArgumentException(label + ": alignment must be a power of two, got " + alignment);
        }
        if (slabSize < alignment || capacity < alignment) {
            throw new IllegalArgumentException(label + ": slab size " + slabSize + " and capacity " + capacity + " must be at least the alignment " + alignment);
        }
        this.alignment = alignment;
        this.slabSize = roundUp(slabSize, alignment);
        this.capacity = capacity;
        this.source = source;
    }

    /**
     * Grows by slabs of {@code slabSize} bytes (a larger buffer gets a slab of its own size) from
     * {@code source}, up to {@code capacity} bytes of slabs in all; empty slabs go back to the
     * source under pressure and at close.
     */
    public static <S> SubAllocator<S> growing(String label, long alignment, long slabSize, long capacity, SlabSource<S> source)
    {
        return new SubAllocator<>(label, alignment, slabSize, capacity, requireNonNull(source, "source is null"));
    }

    /** Carves one slab its owner made and frees ({@code size} bytes, e.g. a shared-memory mapping); never grows. */
    public static <S> SubAllocator<S> fixed(String label, long alignment, S slab, long size)
    {
        SubAllocator<S> allocator = new SubAllocator<>(label, alignment, size, size, null);
        allocator.slabs.add(new Slab<>(requireNonNull(slab, "slab is null"), allocator.nextSlabNumber++, size));
        allocator.slabBytes = size;
        return allocator;
    }

    /** The alignment-rounded size a buffer of {@code size} bytes takes in a slab. */
    public long reservedSize(long size)
    {
        return roundUp(size, alignment);
    }

    /**
     * A range of {@code size} bytes. Parked frees whose holders have gone are reclaimed first;
     * then the first slab with room is used; then (growing only) a new slab is made, after giving
     * empty slabs back if the capacity or the source says no.
     *
     * @throws DeviceOutOfMemoryException with the books in the message
     */
    public synchronized Allocation<S> allocate(long size)
    {
        checkOpen();
        if (size <= 0) {
            throw new IllegalArgumentException(label + ": allocation size must be positive, got " + size);
        }
        reclaimLocked();
        long reserved = reservedSize(size);
        Allocation<S> taken = takeLocked(size, reserved);
        if (taken != null) {
            return taken;
        }
        if (source == null) {
            throw outOfMemory(size, reserved, "");
        }
        long newSlab = Math.max(slabSize, reserved);
        if (slabBytes + newSlab > capacity) {
            trimLocked();
            if (slabBytes + newSlab > capacity) {
                throw outOfMemory(size, reserved, "; a new slab of " + newSlab + " bytes would pass the capacity");
            }
        }
        S handle;
        try {
            handle = source.allocate(newSlab);
        }
        catch (DeviceOutOfMemoryException e) {
            if (trimLocked() == 0) {
                throw outOfMemory(size, reserved, "; a new slab of " + newSlab + " bytes failed: " + e.getMessage());
            }
            try {
                handle = source.allocate(newSlab);
            }
            catch (DeviceOutOfMemoryException again) {
                throw outOfMemory(size, reserved, "; a new slab of " + newSlab + " bytes failed after returning empty slabs: " + again.getMessage());
            }
        }
        Slab<S> slab = new Slab<>(handle, nextSlabNumber++, newSlab);
        slabs.add(slab);
        slabBytes += newSlab;
        return takeLocked(size, reserved);
    }

    private Allocation<S> takeLocked(long size, long reserved)
    {
        for (Slab<S> slab : slabs) {
            long start = slab.space.take(reserved);
            if (start >= 0) {
                liveBytes += size;
                return new Allocation<>(slab, start, size, reserved);
            }
        }
        return null;
    }

    private DeviceOutOfMemoryException outOfMemory(long size, long reserved, String why)
    {
        long largest = 0;
        long free = 0;
        for (Slab<S> slab : slabs) {
            largest = Math.max(largest, slab.space.largestFreeRange());
            free += slab.space.freeBytes();
        }
        return new DeviceOutOfMemoryException(label + " has no free range of " + reserved + " bytes: " + slabs.size() + " slab(s) of " + slabBytes
                + " bytes (capacity " + capacity + "), free " + free + " (largest range " + largest + "), in use " + liveBytes + ", " + pendingBytes
                + " bytes held by IPC importers" + why, size);
    }

    /**
     * Gives the range back, or, when {@code holdersGone} says another process still holds it,
     * parks it (still in use) until a later check passes. Freeing twice is an error.
     */
    public synchronized void free(Allocation<S> allocation, BooleanSupplier holdersGone)
    {
        requireNonNull(holdersGone, "holdersGone is null");
        if (allocation.freed) {
            throw new IllegalStateException(label + ": range [" + allocation.offset + ", +" + allocation.size + ") of slab " + allocation.slab.number + " freed twice");
        }
        allocation.freed = true;
        liveBytes -= allocation.size;
        if (holdersGone.getAsBoolean()) {
            allocation.slab.space.give(allocation.offset, allocation.reserved);
            return;
        }
        parked.add(new Parked<>(allocation, holdersGone));
        pendingBytes += allocation.size;
        deferredFrees++;
    }

    /** Returns parked ranges whose holders have gone; the bytes (requested sizes) reclaimed. */
    public synchronized long reclaim()
    {
        return reclaimLocked();
    }

    private long reclaimLocked()
    {
        long reclaimed = 0;
        for (Iterator<Parked<S>> iterator = parked.iterator(); iterator.hasNext(); ) {
            Parked<S> entry = iterator.next();
            if (entry.holdersGone().getAsBoolean()) {
                iterator.remove();
                Allocation<S> allocation = entry.allocation();
                allocation.slab.space.give(allocation.offset, allocation.reserved);
                pendingBytes -= allocation.size;
                reclaimed += allocation.size;
                reclaimedFrees++;
            }
        }
        return reclaimed;
    }

    /** Frees empty slabs (growing only); the bytes given back. */
    public synchronized long trim()
    {
        return trimLocked();
    }

    private long trimLocked()
    {
        if (source == null) {
            return 0;
        }
        long freed = 0;
        for (Iterator<Slab<S>> iterator = slabs.iterator(); iterator.hasNext(); ) {
            Slab<S> slab = iterator.next();
            if (slab.space.isEmpty()) {
                iterator.remove();
                slab.runReleaseHooks(label);
                source.free(slab.handle);
                slabBytes -= slab.space.capacity();
                freed += slab.space.capacity();
            }
        }
        return freed;
    }

    /** Requested bytes of buffers not yet freed. */
    public synchronized long liveBytes()
    {
        return liveBytes;
    }

    /** Requested bytes freed by their owner but still held by another process. */
    public synchronized long pendingBytes()
    {
        return pendingBytes;
    }

    /** What this pool really holds for buffers: live plus pending. */
    public synchronized long usedBytes()
    {
        return liveBytes + pendingBytes;
    }

    /** Bytes of slabs made (and not yet given back). */
    public synchronized long slabBytes()
    {
        return slabBytes;
    }

    /** Frees that had to wait for another process, and how many of them were reclaimed since. */
    public synchronized long deferredFrees()
    {
        return deferredFrees;
    }

    public synchronized long reclaimedFrees()
    {
        return reclaimedFrees;
    }

    private void checkOpen()
    {
        if (closed) {
            throw new IllegalStateException(label + " is closed");
        }
    }

    /**
     * Reclaims what it can and gives empty slabs back (growing only). Slabs that still hold live
     * or parked ranges are kept and logged: freeing memory an importer maps, or a leaked buffer
     * someone may still use, would turn a leak into corruption. Idempotent.
     */
    @Override
    public synchronized void close()
    {
        if (closed) {
            return;
        }
        reclaimLocked();
        trimLocked();
        closed = true;
        // What is registered for the slabs that stay (an owner's fixed slab, leaked ranges) is released before their owner frees them.
        slabs.forEach(slab -> slab.runReleaseHooks(label));
        if (liveBytes > 0 || pendingBytes > 0) {
            log.warn("{} closes with {} bytes in live buffers and {} bytes held by IPC importers; {}", label, liveBytes, pendingBytes,
                    source == null ? "its slab stays with its owner" : slabs.size() + " slab(s) of " + slabBytes + " bytes stay allocated");
        }
    }

    @Override
    public synchronized String toString()
    {
        return label + ": " + slabs.size() + " slab(s), " + slabBytes + " bytes, " + liveBytes + " live, " + pendingBytes + " held by importers";
    }

    private static long roundUp(long value, long alignment)
    {
        return (value + alignment - 1) & -alignment;
    }
}
