package dev.ferry.device.pool;

/**
 * Something that can give device memory back under pressure (the tiered shuffle store, a cache).
 * Called by {@link DeviceMemoryPool} on the allocating thread, outside allocator locks.
 */
public interface SpillCallback
{
    String name();

    /**
     * Frees about {@code bytesWanted} bytes of the pool's device memory. Returns the bytes freed
     * (0 when nothing could go). Throws only when spilling itself failed, e.g. a full disk; the
     * pool reports that failure to the allocation that needed the room.
     */
    long spill(long bytesWanted);
}
