package dev.ferry.shuffle.transport.rdma.verbs;

import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * One registered chunk ({@code ibv_mr}): at most 2 GiB - 1 bytes, because DiSNI's registration
 * length is an {@code int}. {@code rkey} is what peers put in their READs and is the key to publish;
 * {@code lkey} is for local scatter entries only (they differ on most HCAs).
 *
 * @param address the address the NIC knows the first byte by (virtual address, or device pointer)
 * @param memoryOffset where the chunk starts inside the registered memory
 */
public record MemoryRegion(long address, int length, int lkey, int rkey, Set<Access> access, long memoryOffset)
{
    public MemoryRegion
    {
        if (length <= 0) {
            throw new IllegalArgumentException("region length must be positive, got " + length);
        }
        access = Set.copyOf(requireNonNull(access, "access is null"));
    }

    /** Whether {@code [start, start + count)} lies inside this region, without overflow. */
    public boolean contains(long start, long count)
    {
        return count >= 0 && start >= address && start - address <= length - count;
    }

    @Override
    public String toString()
    {
        return "region [0x" + Long.toHexString(address) + ", +" + length + ") rkey 0x" + Integer.toHexString(rkey) + " " + access;
    }
}
