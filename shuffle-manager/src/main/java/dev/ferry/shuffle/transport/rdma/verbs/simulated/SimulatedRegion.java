package dev.ferry.shuffle.transport.rdma.verbs.simulated;

import java.nio.ByteBuffer;

import dev.ferry.shuffle.transport.rdma.verbs.MemoryRegion;

import static java.util.Objects.requireNonNull;

/** A registered region as the simulated NIC keeps it: the keys and range, and the bytes behind them. */
final class SimulatedRegion
{
    private final MemoryRegion region;
    private final ByteBuffer bytes;
    private final int device;

    SimulatedRegion(MemoryRegion region, ByteBuffer bytes, int device)
    {
        this.region = requireNonNull(region, "region is null");
        this.bytes = requireNonNull(bytes, "bytes is null");
        this.device = device;
        if (bytes.capacity() != region.length()) {
            throw new IllegalArgumentException("region of " + region.length() + " bytes backed by " + bytes.capacity());
        }
    }

    MemoryRegion region()
    {
        return region;
    }

    int device()
    {
        return device;
    }

    /** Copies {@code [address, +length)} out; the caller checked the range against the region. */
    void read(long address, byte[] target, int targetOffset, int length)
    {
        bytes.get(Math.toIntExact(address - region.address()), target, targetOffset, length);
    }

    /** Copies into {@code [address, +length)}; the caller checked the range against the region. */
    void write(long address, byte[] source, int sourceOffset, int length)
    {
        bytes.put(Math.toIntExact(address - region.address()), source, sourceOffset, length);
    }
}
