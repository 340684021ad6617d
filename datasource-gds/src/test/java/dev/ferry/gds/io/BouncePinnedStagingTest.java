package dev.ferry.gds.io;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The BOUNCE route takes its staging ring from the pinned-host API, reuses it, and falls back (counted) when pinned memory is refused. */
class BouncePinnedStagingTest
{
    private static final byte[] DATA = new byte[(2 << 20) + 4321];
    private static final int SLICE = 32 << 10;

    @TempDir
    static Path directory;
    private static Path file;

    @BeforeAll
    static void write()
            throws IOException
    {
        new Random(11).nextBytes(DATA);
        file = directory.resolve("bounce.bin");
        Files.write(file, DATA);
    }

    @Test
    void stagingBuffersComeFromThePinnedApiAndAreReused()
            throws Exception
    {
        try (DeviceRuntime runtime = simulated("64m")) {
            long withRing;
            try (BounceParquetDataSource source = BounceParquetDataSource.open(runtime, 0, file, "bounce.bin", new ReadPlanning(64, 1 << 30, SLICE), Optional.empty())) {
                assertTrue(source.stagesThroughPinnedMemory(), source.stagingReason());
                assertEquals(2, runtime.pinnedHostBuffersAllocated(), "a ring of two pinned staging buffers");
                assertEquals(2L * SLICE, runtime.pinnedAllocator().allocatedBytes());
                assertTrue(source.readPathReason().contains("pinned host memory"), source.readPathReason());
                assertReadsLikeTheFile(source);
                // The copies back to the decoder's heap buffers go through the pooled stream's two
                // pinned staging chunks (the device runtime's), allocated at its first pageable copy.
                assertEquals(4, runtime.pinnedHostBuffersAllocated(), "the ring's two buffers and the copy stream's two staging chunks");
                // Many slices later, still the same four buffers: reused, not allocated per read.
                assertReadsLikeTheFile(source);
                assertEquals(4, runtime.pinnedHostBuffersAllocated());
                assertEquals(source.counters().bytes(), source.counters().posixBytes());
                withRing = runtime.pinnedAllocator().allocatedBytes();
            }
            // The ring is the source's and goes with it; the idle stream keeps its staging chunks for the next copy until the runtime closes.
            assertEquals(withRing - 2L * SLICE, runtime.pinnedAllocator().allocatedBytes(), "the ring's buffers freed at close");
            assertEquals(0, runtime.deviceAllocator(0).allocatedBytes(), "device memory left allocated");
        }
    }

    @Test
    void refusedPinnedMemoryFallsBackWithACountedReasonAndReadsTheSame()
            throws Exception
    {
        // A 48 KiB pinned limit holds one 32 KiB slot, not two.
        try (DeviceRuntime runtime = simulated("48k")) {
            long fallbacks = BounceParquetDataSource.pinnedStagingFallbacks();
            try (BounceParquetDataSource source = BounceParquetDataSource.open(runtime, 0, file, "bounce.bin", new ReadPlanning(64, 1 << 30, SLICE), Optional.empty())) {
                assertFalse(source.stagesThroughPinnedMemory());
                assertTrue(source.stagingReason().contains("pinned staging failed"), source.stagingReason());
                assertEquals(fallbacks + 1, BounceParquetDataSource.pinnedStagingFallbacks());
                assertEquals(0, runtime.pinnedAllocator().allocatedBytes(), "the half-built ring was released");
                assertReadsLikeTheFile(source);
            }
            assertEquals(0, runtime.deviceAllocator(0).allocatedBytes(), "device memory left allocated");
        }
    }

    private static DeviceRuntime simulated(String pinnedLimit)
    {
        return DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "simulated", "spark.ferry.device.simulated.count", "1",
                "spark.ferry.device.simulated.capacity", "32m", "spark.ferry.device.pinnedLimit", pinnedLimit)));
    }

    private static void assertReadsLikeTheFile(BounceParquetDataSource source)
            throws IOException
    {
        Map<String, DiskRange> ranges = new LinkedHashMap<>();
        ranges.put("head", new DiskRange(0, 100));
        ranges.put("unaligned", new DiskRange(4097, 3 * SLICE + 5));
        ranges.put("large", new DiskRange(300_001, 1_000_000));
        ranges.put("tail", new DiskRange(DATA.length - 9000, 9000));
        Map<String, ByteBuffer> buffers = source.planRead(ranges);
        for (Map.Entry<String, DiskRange> range : ranges.entrySet()) {
            ByteBuffer buffer = buffers.get(range.getKey());
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);
            byte[] expected = new byte[range.getValue().length()];
            System.arraycopy(DATA, (int) range.getValue().position(), expected, 0, expected.length);
            assertArrayEquals(expected, bytes, range.getKey());
        }
        ByteBuffer whole = source.readFully(0, DATA.length);
        byte[] all = new byte[whole.remaining()];
        whole.get(all);
        assertArrayEquals(DATA, all, "whole file");
    }
}
