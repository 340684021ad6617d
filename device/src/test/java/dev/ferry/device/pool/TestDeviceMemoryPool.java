package dev.ferry.device.pool;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.memory.BufferAllocator;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.device.memory.DeviceOutOfMemoryException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
public class TestDeviceMemoryPool
{
    private static final int MIB = 1 << 20;

    private static DeviceRuntime simulated()
    {
        return DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "simulated", "spark.ferry.device.simulated.capacity", "16m")));
    }

    @Test
    public void allocationWaitsForAnotherOwnersRelease()
            throws Exception
    {
        try (DeviceRuntime runtime = simulated(); DeviceMemoryPool pool = new DeviceMemoryPool(runtime, 0, MIB, 10_000)) {
            DeviceBuffer held = pool.allocate(MIB);
            CountDownLatch waiting = new CountDownLatch(1);
            Thread releaser = new Thread(() -> {
                try {
                    waiting.await();
                    Thread.sleep(200);
                }
                catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                held.close();
            });
            releaser.start();
            long start = System.nanoTime();
            waiting.countDown();
            try (DeviceBuffer buffer = pool.allocate(MIB / 2)) {
                long waitedMillis = (System.nanoTime() - start) / 1_000_000;
                assertTrue(waitedMillis >= 150, "returned after " + waitedMillis + " ms, before the release");
                assertEquals(MIB / 2, buffer.length());
            }
            releaser.join();
            assertEquals(1, pool.waitCount());
            assertEquals(0, pool.spillCount(), "nothing was registered to spill");
        }
    }

    @Test
    public void allocationFailsAfterTheWaitWithTheDetails()
    {
        try (DeviceRuntime runtime = simulated(); DeviceMemoryPool pool = new DeviceMemoryPool(runtime, 0, MIB, 100)) {
            try (DeviceBuffer held = pool.allocate(MIB)) {
                long start = System.nanoTime();
                DeviceOutOfMemoryException failure = assertThrows(DeviceOutOfMemoryException.class, () -> pool.allocate(1));
                assertTrue(System.nanoTime() - start >= 90_000_000L);
                assertTrue(failure.getMessage().contains("allocator 'pool-device-0' limit " + MIB), failure.getMessage());
                assertTrue(failure.getMessage().contains("waited 100 ms"), failure.getMessage());
                assertTrue(held.isOpen());
            }
        }
    }

    @Test
    public void poolAndStoreFollowTheirSettings(@org.junit.jupiter.api.io.TempDir java.nio.file.Path temp)
    {
        MapConfigSource config = new MapConfigSource(Map.of(
                "spark.ferry.device.memoryLimit", "512k",
                "spark.ferry.device.pool.waitMillis", "0",
                "spark.ferry.device.pool.hostTierLimit", "256k",
                "spark.ferry.device.pool.spillDir", temp.resolve("spill").toString(),
                "spark.ferry.device.pool.spillDirLimit", "256k"));
        try (DeviceRuntime runtime = simulated();
                DeviceMemoryPool pool = DeviceMemoryPool.create(runtime, 0, config);
                TieredShuffleStore store = TieredShuffleStore.create(runtime, 0, pool, config)) {
            assertEquals(512 * 1024, pool.allocator().limit());
            for (int map = 0; map < 4; map++) {
                store.put(new StoredBlock(5, map, 0, 0, 0), java.nio.ByteBuffer.wrap(new byte[256 * 1024]));
            }
            TierMetrics metrics = store.metrics();
            assertEquals(512 * 1024, metrics.deviceBytes(), metrics.toString());
            assertEquals(256 * 1024, metrics.hostBytes(), metrics.toString());
            assertEquals(256 * 1024, metrics.diskBytes(), metrics.toString());
            assertTrue(java.nio.file.Files.isDirectory(temp.resolve("spill")));
            // The disk tier is full now; the next spill fails at once (waitMillis 0) and names the directory.
            dev.ferry.common.FerryException full = assertThrows(dev.ferry.common.FerryException.class,
                    () -> store.put(new StoredBlock(5, 9, 0, 0, 0), java.nio.ByteBuffer.wrap(new byte[256 * 1024])));
            assertTrue(full.getMessage().contains(temp.resolve("spill").toString()), full.getMessage());
        }
    }

    @Test
    public void concurrentAllocationsKeepExactBooks()
            throws Exception
    {
        try (DeviceRuntime runtime = simulated()) {
            BufferAllocator root = runtime.deviceAllocator(0);
            ExecutorService threads = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    int seed = t;
                    done.add(threads.submit(() -> {
                        Random random = new Random(seed);
                        try (BufferAllocator task = root.newChildAllocator("task-" + seed, 4 * MIB)) {
                            List<DeviceBuffer> live = new ArrayList<>();
                            for (int i = 0; i < 300; i++) {
                                if (!live.isEmpty() && (random.nextBoolean() || task.headroom() < 64 * 1024)) {
                                    live.remove(random.nextInt(live.size())).close();
                                }
                                else {
                                    live.add(task.allocate(1 + random.nextInt(64 * 1024)));
                                }
                            }
                            live.forEach(DeviceBuffer::close);
                        }
                        return null;
                    }));
                }
                for (Future<?> future : done) {
                    future.get(30, TimeUnit.SECONDS);
                }
            }
            finally {
                threads.shutdownNow();
            }
            root.verify();
            assertEquals(0, root.allocatedBytes());
            assertTrue(root.peakBytes() > 0);
            // The arena got every range back: the whole device fits in one allocation again.
            try (DeviceBuffer all = root.allocate(root.limit())) {
                assertEquals(root.limit(), all.length());
            }
        }
    }
}
