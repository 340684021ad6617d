package dev.ferry.device.pool;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.memory.DeviceBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A block whose bytes are already in device memory (a repartition's packed output) is stored as
 * the pool buffer itself, no copy: lent, read and spilled like a block stored from host memory; a
 * buffer from outside the pool, or a second block under a stored key, is refused and freed (the
 * runtime's close would report a leak otherwise).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TestTieredShuffleStorePutOnDevice
{
    private static final int BLOCK = 64 * 1024;

    @TempDir
    Path temp;

    @Test
    void aPoolBufferIsStoredWithoutACopyAndSpillsLikeAnyBlock()
    {
        try (DeviceRuntime runtime = simulated();
                DeviceMemoryPool pool = new DeviceMemoryPool(runtime, 0, 8L * BLOCK, 100);
                TieredShuffleStore store = new TieredShuffleStore(runtime, 0, pool, 8L * BLOCK, new LocalSpillDirectory(temp.resolve("spill"), 0))) {
            DeviceBuffer buffer = pool.allocate(BLOCK);
            upload(runtime, buffer, pattern(3));
            long allocated = pool.allocatedBytes();
            StoredBlock block = new StoredBlock(5, 1, 2, 0, 1);
            store.putOnDevice(block, buffer);
            assertEquals(allocated, pool.allocatedBytes(), "stored without a copy");
            assertEquals(StorageTier.DEVICE, store.tierOf(block));
            try (BlockLease lease = store.borrow(block)) {
                assertEquals(BLOCK, lease.length());
            }
            assertArrayEquals(pattern(3), bytes(store.read(block)));
            assertTrue(store.spill(BLOCK) >= BLOCK);
            assertEquals(StorageTier.HOST, store.tierOf(block), "spilled to host memory like any other block");
            assertArrayEquals(pattern(3), bytes(store.read(block)));
            assertEquals(1, store.releaseShuffle(5));
        }
    }

    @Test
    void aBufferFromOutsideThePoolOrUnderAStoredKeyIsRefusedAndFreed()
    {
        try (DeviceRuntime runtime = simulated();
                DeviceMemoryPool pool = new DeviceMemoryPool(runtime, 0, 8L * BLOCK, 100);
                TieredShuffleStore store = new TieredShuffleStore(runtime, 0, pool, 8L * BLOCK, new LocalSpillDirectory(temp.resolve("spill"), 0))) {
            DeviceBuffer foreign = runtime.deviceAllocator(0).allocate(BLOCK);
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> store.putOnDevice(new StoredBlock(5, 1, 0, 0, 1), foreign));
            assertTrue(refused.getMessage().contains("not an allocation of this store's pool"), refused.getMessage());
            assertFalse(foreign.isOpen(), "the refused buffer was freed");

            StoredBlock block = new StoredBlock(5, 1, 1, 0, 1);
            store.putOnDevice(block, pool.allocate(BLOCK));
            DeviceBuffer second = pool.allocate(BLOCK);
            assertThrows(IllegalArgumentException.class, () -> store.putOnDevice(block, second));
            assertFalse(second.isOpen(), "the duplicate's buffer was freed");
            assertEquals(BLOCK, pool.allocatedBytes(), "only the stored block is allocated");
            store.releaseShuffle(5);
            assertEquals(0, pool.allocatedBytes());
        }
    }

    private static DeviceRuntime simulated()
    {
        return DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "simulated", "spark.ferry.device.simulated.capacity", "16m")));
    }

    private static byte[] pattern(int seed)
    {
        byte[] bytes = new byte[BLOCK];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (seed * 31 + i * 7);
        }
        return bytes;
    }

    private static void upload(DeviceRuntime runtime, DeviceBuffer buffer, byte[] bytes)
    {
        try (DeviceStream stream = runtime.newStream(0)) {
            stream.copyFromHost(ByteBuffer.wrap(bytes), buffer, 0);
            stream.synchronize();
        }
    }

    private static byte[] bytes(ByteBuffer buffer)
    {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }
}
