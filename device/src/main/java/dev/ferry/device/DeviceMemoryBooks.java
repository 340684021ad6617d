package dev.ferry.device;

import java.util.OptionalLong;

import static java.util.Objects.requireNonNull;

/**
 * One device's memory books at a moment: what Ferry's allocator tree counts for live buffers,
 * what was freed but is still held by IPC importers (still on the device, still counted against
 * the limit), and what the backend's memory pool really holds for buffers. They agree when
 * {@code allocated + heldByImporters == poolInUse}; a backend without a pool (host) has nothing to
 * compare.
 */
public record DeviceMemoryBooks(int device, long allocated, long heldByImporters, OptionalLong poolInUse)
{
    public DeviceMemoryBooks
    {
        requireNonNull(poolInUse, "poolInUse is null");
    }

    /** What Ferry's books say the device holds: live plus held by importers. */
    public long used()
    {
        return allocated + heldByImporters;
    }

    public boolean exact()
    {
        return poolInUse.isEmpty() || poolInUse.getAsLong() == used();
    }

    @Override
    public String toString()
    {
        return "device " + device + ": allocated " + allocated + ", held by importers " + heldByImporters
                + poolInUse.stream().mapToObj(bytes -> ", pool in use " + bytes).findFirst().orElse(", no pool");
    }
}
