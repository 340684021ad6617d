package dev.ferry.device.pool;

import dev.ferry.common.FerryException;
import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.device.memory.DeviceOutOfMemoryException;
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

@Timeout(value = 60, unit = TimeUnit.SECONDS)
public class TestTieredShuffleStoreBorrow
{
    private static final int BLOCK = 256 * 1024;

    @TempDir
    Path temp;

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

    private static byte[] toHost(DeviceRuntime runtime, DeviceBuffer buffer)
    {
        ByteBuffer copy = ByteBuffer.allocate(Math.toIntExact(buffer.length()));
        try (DeviceStream stream = runtime.newStream(0)) {
            stream.copyToHost(buffer, 0, copy);
        }
        return copy.array();
    }

    private TieredShuffleStore store(DeviceRuntime runtime, DeviceMemoryPool pool)
    {
        return new TieredShuffleStore(runtime, 0, pool, 8L * BLOCK, new LocalSpillDirectory(temp.resolve("spill"), 0));
    }

    @Test
    public void aBorrowedBlockIsTheStoredDeviceMemoryWithoutACopy()
    {
        try (DeviceRuntime runtime = simulated();
                DeviceMemoryPool pool = new DeviceMemoryPool(runtime, 0, 4L * BLOCK, 100);
                TieredShuffleStore store = store(runtime, pool)) {
            StoredBlock block = new StoredBlock(1, 0, 0, 0, 7);
            store.put(block, ByteBuffer.wrap(pattern(1)));
            long allocated = pool.allocatedBytes();
            try (BlockLease lease = store.borrow(block)) {
                assertEquals(allocated, pool.allocatedBytes(), "borrowing must not allocate");
                assertEquals(BLOCK, lease.length());
                assertEquals(block, lease.block());
                assertArrayEquals(pattern(1), toHost(runtime, lease.buffer()));
                assertEquals(1, store.leasesOf(block));
                try (BlockLease second = store.tryBorrow(block).orElseThrow()) {
                    assertEquals(2, store.leasesOf(block));
                    assertArrayEquals(pattern(1), toHost(runtime, second.buffer()));
                }
                assertEquals(1, store.leasesOf(block));
            }
            assertEquals(0, store.leasesOf(block));
            assertEquals(StorageTier.DEVICE, store.tierOf(block));
            assertEquals(1, store.releaseTask(7));
            assertEquals(0, pool.allocatedBytes());
        }
    }

    @Test
    public void aBorrowedBlockIsNotSpilledAndOthersAre()
    {
        try (DeviceRuntime runtime = simulated();
                DeviceMemoryPool pool = new DeviceMemoryPool(runtime, 0, 2L * BLOCK, 100);
                TieredShuffleStore store = store(runtime, pool)) {
            StoredBlock first = new StoredBlock(1, 0, 0, 0, 1);
            StoredBlock second = new StoredBlock(1, 1, 0, 0, 1);
            store.put(first, ByteBuffer.wrap(pattern(0)));
            store.put(second, ByteBuffer.wrap(pattern(1)));
            try (BlockLease lease = store.borrow(first)) {
                // The oldest block would go first; it is borrowed, so the next one goes instead.
                store.put(new StoredBlock(1, 2, 0, 0, 1), ByteBuffer.wrap(pattern(2)));
                assertEquals(StorageTier.DEVICE, store.tierOf(first));
                assertEquals(StorageTier.HOST, store.tierOf(second));
                assertArrayEquals(pattern(0), toHost(runtime, lease.buffer()));
            }
            // Returned, it spills like any other.
            store.put(new StoredBlock(1, 3, 0, 0, 1), ByteBuffer.wrap(pattern(3)));
            assertEquals(StorageTier.HOST, store.tierOf(first));
            for (int map = 0; map < 4; map++) {
                assertArrayEquals(pattern(map), store.read(new StoredBlock(1, map, 0, 0, 1)).array(), "block " + map);
            }
        }
    }

    @Test
    public void whenEveryDeviceBlockIsBorrowedAllocationFailsInsteadOfSpillingThem()
    {
        try (DeviceRuntime runtime = simulated();
                DeviceMemoryPool pool = new DeviceMemoryPool(runtime, 0, 2L * BLOCK, 50);
                TieredShuffleStore store = store(runtime, pool)) {
            StoredBlock first = new StoredBlock(1, 0, 0, 0, 1);
            StoredBlock second = new StoredBlock(1, 1, 0, 0, 1);
            store.put(first, ByteBuffer.wrap(pattern(0)));
            store.put(second, ByteBuffer.wrap(pattern(1)));
            try (BlockLease a = store.borrow(first); BlockLease b = store.borrow(second)) {
                assertThrows(DeviceOutOfMemoryException.class, () -> store.put(new StoredBlock(1, 2, 0, 0, 1), ByteBuffer.wrap(pattern(2))));
                assertEquals(StorageTier.DEVICE, store.tierOf(first));
                assertEquals(StorageTier.DEVICE, store.tierOf(second));
            }
            store.put(new StoredBlock(1, 2, 0, 0, 1), ByteBuffer.wrap(pattern(2)));
            assertEquals(StorageTier.HOST, store.tierOf(first));
        }
    }

    @Test
    public void aSpilledBlockIsRefusedClearlyAndReadThroughHost()
    {
        try (DeviceRuntime runtime = simulated();
                DeviceMemoryPool pool = new DeviceMemoryPool(runtime, 0, BLOCK, 100);
                TieredShuffleStore store = store(runtime, pool)) {
            StoredBlock spilled = new StoredBlock(3, 0, 0, 0, 1);
            store.put(spilled, ByteBuffer.wrap(pattern(5)));
            store.put(new StoredBlock(3, 1, 0, 0, 1), ByteBuffer.wrap(pattern(6)));
            assertEquals(StorageTier.HOST, store.tierOf(spilled));
            assertTrue(store.tryBorrow(spilled).isEmpty());
            FerryException refused = assertThrows(FerryException.class, () -> store.borrow(spilled));
            assertTrue(refused.getMessage().contains("spilled to the HOST tier"), refused.getMessage());
            assertArrayEquals(pattern(5), store.read(spilled).array());
            assertThrows(FerryException.class, () -> store.tryBorrow(new StoredBlock(3, 9, 0, 0, 1)), "unknown block");
        }
    }

    @Test
    public void releasingABorrowedBlockKeepsItsMemoryUntilTheLeaseCloses()
    {
        try (DeviceRuntime runtime = simulated();
                DeviceMemoryPool pool = new DeviceMemoryPool(runtime, 0, 4L * BLOCK, 100);
                TieredShuffleStore store = store(runtime, pool)) {
            StoredBlock block = new StoredBlock(4, 0, 0, 2, 9);
            store.put(block, ByteBuffer.wrap(pattern(8)));
            BlockLease lease = store.borrow(block);
            assertEquals(1, store.releaseShuffle(4));
            assertEquals(0, store.metrics().deviceBytes());
            assertEquals(BLOCK, pool.allocatedBytes(), "the lease still holds the memory");
            assertArrayEquals(pattern(8), toHost(runtime, lease.buffer()));
            lease.close();
            lease.close();
            assertFalse(lease.isOpen());
            assertThrows(IllegalStateException.class, lease::buffer);
            assertEquals(0, pool.allocatedBytes());
        }
    }
}
