package dev.ferry.device.memory;

/**
 * Hooks an allocator calls around allocations. Like Arrow's listener, the contract is stated per
 * method: only {@link #onFailedAllocation} may do real work (spill), and it must not throw.
 */
public interface AllocationListener
{
    AllocationListener NOOP = new AllocationListener() {};

    /**
     * Called when an allocation does not fit, outside any allocator lock. Return {@code true} when
     * something was freed (for example by spilling) and the allocation should be tried again.
     * May be called repeatedly for one allocation; the allocator bounds the retries.
     */
    default boolean onFailedAllocation(BufferAllocator allocator, long size, String details)
    {
        return false;
    }

    /** Called after bytes were returned to {@code allocator}. Must not throw. */
    default void onRelease(BufferAllocator allocator, long size) {}
}
