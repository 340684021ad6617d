package dev.ferry.shuffle.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.shuffle.FerryFallbacks;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** spark.ferry.shuffle.stage picks the store; device staging goes through the device runtime's tiered store. */
class TestMapOutputStores
{
    private static final EncodedMapOutput OUTPUT = new EncodedMapOutput()
    {
        @Override
        public int partitions()
        {
            return 3;
        }

        @Override
        public long blockLength(int partition)
        {
            return partition == 1 ? 0 : 4096 + partition;
        }

        @Override
        public void writeBlock(int partition, ByteBuffer target)
        {
            ByteBuffer out = target.duplicate();
            for (int i = 0; i < blockLength(partition); i++) {
                out.put((byte) (i * 13 + partition));
            }
        }
    };

    private static void assertRoundTrip(MapOutputStore store)
            throws IOException
    {
        store.commit(new MapOutputId(9, 1234, 0, 2), OUTPUT);
        for (int partition = 0; partition < 3; partition++) {
            try (BlockBytes block = store.open(9, 1234, partition).orElseThrow()) {
                assertEquals(OUTPUT.blockLength(partition), block.length());
                for (int i = 0; i < block.length(); i++) {
                    assertEquals((byte) (i * 13 + partition), block.buffer().getByte(i));
                }
            }
        }
        assertEquals(1, store.removeShuffle(9));
        assertTrue(store.open(9, 1234, 0).isEmpty());
    }

    @Test
    void autoAndHostKeepOutputsInHostMemory(@TempDir Path directory)
            throws IOException
    {
        for (String stage : new String[] {"auto", "host"}) {
            try (BufferAllocator root = new RootAllocator();
                    MapOutputStore store = MapOutputStores.create(new MapConfigSource(Map.of("spark.ferry.shuffle.stage", stage)), root, directory)) {
                assertEquals("host", store.name());
                assertRoundTrip(store);
            }
        }
    }

    @Test
    void deviceStagesBlocksInTheSimulatedGpu(@TempDir Path directory)
            throws IOException
    {
        Map<String, String> settings = Map.of("spark.ferry.shuffle.stage", "device", "spark.ferry.device", "simulated", "spark.ferry.device.simulated.capacity", "64m");
        try (BufferAllocator root = new RootAllocator();
                MapOutputStore store = MapOutputStores.create(new MapConfigSource(settings), root, directory)) {
            assertTrue(store.name().startsWith("device("), store.name());
            assertRoundTrip(store);
        }
    }

    @Test
    void withoutAGpuDeviceStagingFallsBackToHostAndIsCounted(@TempDir Path directory)
            throws IOException
    {
        // The device runtime's host backend is a CPU stand-in, not a GPU: device staging must not pretend.
        for (String device : new String[] {"host", "auto"}) {
            Map<String, String> settings = Map.of("spark.ferry.shuffle.stage", "device", "spark.ferry.device", device);
            long before = FerryFallbacks.total();
            try (BufferAllocator root = new RootAllocator();
                    MapOutputStore store = MapOutputStores.create(new MapConfigSource(settings), root, directory)) {
                if (store.name().startsWith("device(cuda")) {
                    // A machine with a GPU: auto found it, nothing to fall back from.
                    continue;
                }
                assertEquals("host", store.name(), "spark.ferry.device=" + device);
                assertRoundTrip(store);
            }
            assertEquals(before + 1, FerryFallbacks.total(), "spark.ferry.device=" + device);
        }
    }
}
