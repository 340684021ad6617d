package dev.ferry.shuffle.transport;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The idle half of a landing pool: buffers that fetched blocks landed in, kept by size class for the
 * next block, at most {@code retainBytes} of them. Sizes are rounded up to a power of two (at least
 * 64 KiB) so a returned buffer fits later blocks of similar size. What a buffer is (pinned host
 * memory, a registered RDMA sink) and how it is freed stays with the pool that owns it; so does the
 * locking: not thread-safe, the owning pool guards every call.
 */
public final class IdleLandingBuffers<B>
{
    private static final long MIN_SIZE_CLASS = 64L << 10;

    private final long retainBytes;
    private final Map<Long, ArrayDeque<B>> idle = new HashMap<>();
    private long idleBytes;

    public IdleLandingBuffers(long retainBytes)
    {
        if (retainBytes < 0) {
            throw new IllegalArgumentException("retained landing bytes must not be negative: " + retainBytes);
        }
        this.retainBytes = retainBytes;
    }

    /** The buffer size that a block of {@code length} bytes lands in. */
    public static long sizeClass(long length)
    {
        if (length <= MIN_SIZE_CLASS) {
            return MIN_SIZE_CLASS;
        }
        long power = Long.highestOneBit(length);
        return power == length ? length : power << 1;
    }

    /** An idle buffer of {@code sizeClass} bytes, taken out of the pool, or null when none is idle. */
    public B take(long sizeClass)
    {
        ArrayDeque<B> buffers = idle.get(sizeClass);
        if (buffers == null || buffers.isEmpty()) {
            return null;
        }
        idleBytes -= sizeClass;
        return buffers.pop();
    }

    /** Keeps {@code buffer} ({@code sizeClass} bytes) for reuse; false when that would exceed the retained bytes, and the caller frees it. */
    public boolean keep(B buffer, long sizeClass)
    {
        if (idleBytes + sizeClass > retainBytes) {
            return false;
        }
        idle.computeIfAbsent(sizeClass, ignored -> new ArrayDeque<>()).push(buffer);
        idleBytes += sizeClass;
        return true;
    }

    /** Every idle buffer, taken out of the pool for the caller to free. */
    public List<B> drain()
    {
        List<B> drained = new ArrayList<>();
        idle.values().forEach(drained::addAll);
        idle.clear();
        idleBytes = 0;
        return drained;
    }

    public long idleBytes()
    {
        return idleBytes;
    }
}
