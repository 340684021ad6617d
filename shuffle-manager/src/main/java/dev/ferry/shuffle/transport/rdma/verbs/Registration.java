package dev.ferry.shuffle.transport.rdma.verbs;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.ferry.shuffle.transport.wire.RemoteSlice;

import static java.util.Objects.requireNonNull;

/**
 * Memory registered with one protection domain, as one or more {@link MemoryRegion}s in memory
 * order. Deregistration invalidates every key at once; a second deregistration throws, as
 * {@code IbvMr.deregMr()} does. Thread-safe.
 */
public final class Registration
{
    /** Releases the regions with the provider; called once. */
    public interface Deregistrar
    {
        void deregister(List<MemoryRegion> regions)
                throws VerbsException;
    }

    private final RegistrableMemory memory;
    private final List<MemoryRegion> regions;
    private final Deregistrar deregistrar;
    private final AtomicBoolean deregistered = new AtomicBoolean();

    public Registration(RegistrableMemory memory, List<MemoryRegion> regions, Deregistrar deregistrar)
    {
        this.memory = requireNonNull(memory, "memory is null");
        this.regions = List.copyOf(requireNonNull(regions, "regions is null"));
        this.deregistrar = requireNonNull(deregistrar, "deregistrar is null");
        long expected = 0;
        for (MemoryRegion region : this.regions) {
            if (region.memoryOffset() != expected) {
                throw new IllegalArgumentException("Regions of " + memory + " are not contiguous at offset " + expected);
            }
            expected += region.length();
        }
        if (expected != memory.length()) {
            throw new IllegalArgumentException("Regions of " + memory + " cover " + expected + " of " + memory.length() + " bytes");
        }
    }

    public RegistrableMemory memory()
    {
        return memory;
    }

    public List<MemoryRegion> regions()
    {
        return regions;
    }

    public long length()
    {
        return memory.length();
    }

    public boolean isRegistered()
    {
        return !deregistered.get();
    }

    /** The region holding byte {@code offset} of the memory. */
    public MemoryRegion regionAt(long offset)
    {
        checkRange(offset, 1);
        for (MemoryRegion region : regions) {
            if (offset < region.memoryOffset() + region.length()) {
                return region;
            }
        }
        throw new IllegalStateException("unreachable: offset " + offset + " checked against " + length());
    }

    /**
     * What a peer needs to READ {@code [offset, +length)}: one slice per region the range touches,
     * in order. This is what a block location response publishes.
     */
    public List<RemoteSlice> remoteSlices(long offset, long length)
    {
        checkRange(offset, length);
        List<RemoteSlice> slices = new ArrayList<>();
        long position = offset;
        long end = offset + length;
        for (MemoryRegion region : regions) {
            long regionEnd = region.memoryOffset() + region.length();
            if (position >= end) {
                break;
            }
            if (position >= regionEnd) {
                continue;
            }
            int count = (int) (Math.min(end, regionEnd) - position);
            slices.add(new RemoteSlice(position - offset, region.address() + (position - region.memoryOffset()), count, region.rkey()));
            position += count;
        }
        return slices;
    }

    /**
     * The block {@code [offset, +length)} of this registration as a registration of its own: the
     * same keys, addresses offset into the regions, no {@code ibv_reg_mr} of its own. Deregistering
     * the slice runs {@code released} only; the regions stay registered until this registration is
     * deregistered (see {@link RegistrationCache}).
     */
    public Registration slice(long offset, long length, Deregistrar released)
    {
        requireNonNull(released, "released is null");
        if (!isRegistered()) {
            throw new IllegalStateException("Cannot slice " + this);
        }
        if (length <= 0) {
            throw new IllegalArgumentException("Cannot slice " + length + " bytes of " + memory);
        }
        checkRange(offset, length);
        List<MemoryRegion> parts = new ArrayList<>();
        for (RemoteSlice slice : remoteSlices(offset, length)) {
            MemoryRegion region = regionAt(offset + slice.offset());
            parts.add(new MemoryRegion(slice.address(), slice.length(), region.lkey(), region.rkey(), region.access(), slice.offset()));
        }
        return new Registration(memory.slice(offset, length), parts, released);
    }

    /**
     * Invalidates every region's keys. Reads posted with them afterwards fail with
     * {@code REM_ACCESS_ERR}. A second call throws.
     */
    public void deregister()
            throws VerbsException
    {
        if (!deregistered.compareAndSet(false, true)) {
            throw new VerbsException("Already deregistered: " + memory + " (double deregistration)");
        }
        deregistrar.deregister(regions);
    }

    private void checkRange(long offset, long count)
    {
        if (offset < 0 || count < 0 || offset > memory.length() - count) {
            throw new IllegalArgumentException("Range [" + offset + ", +" + count + ") is outside the " + memory.length() + " registered bytes of " + memory);
        }
    }

    @Override
    public String toString()
    {
        return "registration of " + memory + " as " + regions.size() + " region(s)" + (isRegistered() ? "" : " (deregistered)");
    }
}
