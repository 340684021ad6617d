package dev.ferry.device.ipc;

import java.util.Map;
import java.util.TreeMap;

/**
 * First-fit bookkeeping of free ranges in an arena, coalescing neighbours on release. Not
 * thread-safe; {@link SharedArena} locks around it.
 */
final class ArenaSpace
{
    private final long capacity;
    private final TreeMap<Long, Long> freeBySize = new TreeMap<>(); // start -> length
    private long freeBytes;

    ArenaSpace(long capacity)
    {
        this.capacity = capacity;
        freeBySize.put(0L, capacity);
        freeBytes = capacity;
    }

    /** The start of a free range of {@code size} bytes now taken, or -1 when none is large enough. */
    long take(long size)
    {
        for (Map.Entry<Long, Long> range : freeBySize.entrySet()) {
            if (range.getValue() >= size) {
                long start = range.getKey();
                long length = range.getValue();
                freeBySize.remove(start);
                if (length > size) {
                    freeBySize.put(start + size, length - size);
                }
                freeBytes -= size;
                return start;
            }
        }
        return -1;
    }

    void give(long start, long size)
    {
        if (start < 0 || size <= 0 || start + size > capacity) {
            throw new IllegalStateException("Range [" + start + ", +" + size + ") is outside the arena of " + capacity + " bytes");
        }
        Map.Entry<Long, Long> before = freeBySize.floorEntry(start);
        if (before != null && before.getKey() + before.getValue() > start) {
            throw new IllegalStateException("Range [" + start + ", +" + size + ") is already free");
        }
        Map.Entry<Long, Long> after = freeBySize.ceilingEntry(start);
        if (after != null && start + size > after.getKey()) {
            throw new IllegalStateException("Range [" + start + ", +" + size + ") overlaps free space at " + after.getKey());
        }
        long newStart = start;
        long newLength = size;
        if (before != null && before.getKey() + before.getValue() == start) {
            newStart = before.getKey();
            newLength += before.getValue();
            freeBySize.remove(before.getKey());
        }
        if (after != null && after.getKey() == start + size) {
            newLength += after.getValue();
            freeBySize.remove(after.getKey());
        }
        freeBySize.put(newStart, newLength);
        freeBytes += size;
    }

    long freeBytes()
    {
        return freeBytes;
    }

    long largestFreeRange()
    {
        long largest = 0;
        for (long length : freeBySize.values()) {
            largest = Math.max(largest, length);
        }
        return largest;
    }
}
