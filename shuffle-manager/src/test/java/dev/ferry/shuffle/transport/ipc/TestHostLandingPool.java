package dev.ferry.shuffle.transport.ipc;

import java.util.Map;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Landing buffers come back for reuse, are accounted in the reader's allocator, and fall back visibly when pinned memory runs out. */
class TestHostLandingPool
{
    @Test
    void aReleasedLandingIsReusedForTheNextBlockOfItsSizeClass()
    {
        try (DeviceRuntime runtime = runtime("64m"); BufferAllocator allocator = new RootAllocator();
                HostLandingPool pool = new HostLandingPool(runtime, 8 << 20)) {
            ArrowBuf first = pool.take(allocator, 1_000_000);
            assertEquals(1_000_000, first.capacity());
            assertEquals(1_000_000, allocator.getAllocatedMemory(), "accounted in the reader's allocator at the block's length");
            first.setByte(999_999, 7);
            long address = first.memoryAddress();
            first.close();
            assertEquals(0, allocator.getAllocatedMemory());
            assertEquals(1 << 20, pool.idleBytes(), "kept at its size class");
            try (ArrowBuf second = pool.take(allocator, 600_000)) {
                assertEquals(address, second.memoryAddress(), "the same pinned buffer again");
            }
            assertEquals(1, pool.allocated());
            assertEquals(1, pool.reused());
            assertEquals(0, pool.unpinnedFallbacks());
            assertThrows(IllegalArgumentException.class, () -> pool.take(allocator, 0));
        }
    }

    @Test
    void beyondTheRetainedBytesBuffersAreFreedAndPinnedShortageFallsBackCounted()
    {
        try (DeviceRuntime runtime = runtime("2m"); BufferAllocator allocator = new RootAllocator();
                HostLandingPool pool = new HostLandingPool(runtime, 0)) {
            pool.take(allocator, 100_000).close();
            assertEquals(0, pool.idleBytes(), "nothing retained with a 0 budget");
            try (ArrowBuf pinned = pool.take(allocator, 1_500_000); ArrowBuf pageable = pool.take(allocator, 1_500_000)) {
                assertEquals(1, pool.unpinnedFallbacks(), "the second 2 MiB class does not fit the 2 MiB pinned limit");
                pageable.setByte(1_499_999, 1);
                assertEquals(1_500_000, pinned.capacity());
                assertTrue(allocator.getAllocatedMemory() >= 3_000_000, "both accounted in the reader's allocator");
            }
            assertEquals(0, runtime.pinnedAllocator().allocatedBytes(), "every pinned landing freed");
        }
    }

    private static DeviceRuntime runtime(String pinnedLimit)
    {
        return DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "simulated", "spark.ferry.device.simulated.capacity", "16m",
                "spark.ferry.device.pinnedLimit", pinnedLimit)));
    }
}
