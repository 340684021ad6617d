package dev.ferry.device.memory;

import java.util.Map;
import java.util.TreeMap;

/**
 * First-fit bookkeeping of free ranges in one slab of a {@link SubAllocator}, coalescing
 * neighbours on release. Not thread-safe; the sub-allocator locks around it.
 */
final class RangeSpace
{
    private final long capacity;
    private final TreeMap<Long, Long> freeByStart = new TreeMap<>(); // start -> length
    private long freeBytes;

    RangeSpace(long capacity)
    {
        this.capacity = capacity;
        freeByStart.put(0L, capacity);
        freeBytes = capacity;
    }

    /** The start of a free range of {@code size} bytes now taken, or -1 when none is large enough. */
    long take(long size)
    {
        for (Map.Entry<Long, Long> range : freeByStart.entrySet()) {
            if (range.getValue() >= size) {
                long start = range.getKey();
                long length = range.getValue();
                freeByStart.remove(start);
                if (length > size) {
                    freeByStart.put(start + size, length - size);
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
            throw new IllegalStateException("Range [" + start + ", +" + size + ") is outside the slab of " + capacity + " bytes");
        }
        Map.Entry<Long, Long> before = freeByStart.floorEntry(start);
        if (before != null && before.getKey() + before.getValue() > start) {
            throw new IllegalStateException("Range [" + start + ", +" + size + ") is already free");
        }
        Map.Entry<Long, Long> after = freeByStart.ceilingEntry(start);
        if (after != null && start + size > after.getKey()) {
            throw new IllegalStateException("Range [" + start + ", +" + size + ") overlaps free space at " + after.getKey());
        }
        long newStart = start;
        long newLength = size;
        if (before != null && before.getKey() + before.getValue() == start) {
            newStart = before.getKey();
            newLength += before.getValue();
            freeByStart.remove(before.getKey());
        }
        if (after != null && after.getKey() == start + size) {
            newLength += after.getValue();
            freeByStart.remove(after.getKey());
        }
        freeByStart.put(newStart, newLength);
        freeBytes += size;
    }

    long capacity()
    {
        return capacity;
    }

    /** Whether every byte is free again (nothing taken). */
    boolean isEmpty()
    {
        return freeBytes == capacity;
    }

    long freeBytes()
    {
        return freeBytes;
    }

    long largestFreeRange()
    {
        long largest = 0;
        for (long length : freeByStart.values()) {
            largest = Math.max(largest, length);
        }
        return largest;
    }
}
