package dev.ferry.gds.io;

import com.sun.nio.file.ExtendedOpenOption;
import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.cufile.ReadPath;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The GDS and BOUNCE routes on the simulated device backend: bytes, alignment, counted outcomes, no leaked device memory. */
class DeviceParquetDataSourceTest
{
    private static final byte[] DATA = new byte[3 << 20];
    private static DeviceRuntime runtime;
    private static ExecutorService pool;

    @TempDir
    static Path directory;
    private static Path file;

    @BeforeAll
    static void start()
            throws IOException
    {
        new Random(7).nextBytes(DATA);
        file = directory.resolve("data.bin");
        Files.write(file, DATA);
        runtime = DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "simulated", "spark.ferry.device.simulated.capacity", "64m")));
        pool = Executors.newFixedThreadPool(3);
    }

    @AfterAll
    static void stop()
    {
        pool.shutdownNow();
        runtime.close();
    }

    @Test
    void gdsReadsUnalignedRangesThroughAlignedDeviceReadsAndCountsTheVerdict()
            throws Exception
    {
        // Small slices so one request becomes several batch pieces, several batches in flight.
        ReadPlanning planning = new ReadPlanning(64, 1 << 30, 64 << 10);
        try (GdsParquetDataSource source = GdsParquetDataSource.open(runtime, 1, file, "data.bin", planning, Optional.of(pool), 3)) {
            assertReadsLikeTheFile(source);
            ReadPath expected = directIoWorks() ? ReadPath.TRUE_DIRECT : ReadPath.POSIX;
            assertEquals(expected, source.readPath(), source.readPathReason());
            long outcome = expected == ReadPath.TRUE_DIRECT ? source.counters().trueDirectBytes() : source.counters().posixBytes();
            assertTrue(outcome >= source.counters().bytes(), outcome + " outcome bytes for " + source.counters().bytes() + " bytes read");
            assertEquals(0, source.counters().compatModeBytes());
            assertEquals(0, expected == ReadPath.TRUE_DIRECT ? source.counters().posixBytes() : source.counters().trueDirectBytes());
        }
        assertEquals(0, runtime.deviceAllocator(1).allocatedBytes(), "device memory left allocated");
    }

    @Test
    void bounceStagesThroughHostBuffersAndCountsPosix()
            throws Exception
    {
        ReadPlanning planning = new ReadPlanning(64, 1 << 30, 32 << 10);
        try (BounceParquetDataSource source = BounceParquetDataSource.open(runtime, 0, file, "data.bin", planning, Optional.of(pool))) {
            assertReadsLikeTheFile(source);
            assertEquals(ReadPath.POSIX, source.readPath());
            assertEquals(source.counters().bytes(), source.counters().posixBytes());
            assertEquals(0, source.counters().trueDirectBytes());
        }
        assertEquals(0, runtime.deviceAllocator(0).allocatedBytes(), "device memory left allocated");
    }

    @Test
    void deviceRangesAreTheHandOffForDeviceConsumers()
            throws Exception
    {
        try (GdsParquetDataSource source = GdsParquetDataSource.open(runtime, 0, file, "data.bin", ReadPlanning.defaults(), Optional.empty(), 1)) {
            List<DeviceRange> resident = source.readToDevice(List.of(new DiskRange(5000, 10_000)));
            try {
                DeviceRange range = resident.get(0);
                assertEquals(5000 % 4096, range.offset(), "the aligned superset starts at the 4 KiB boundary below the range");
                assertTrue(range.buffer().location().isDevice());
                ByteBuffer host = ByteBuffer.allocate(10_000);
                try (var stream = runtime.newStream(0)) {
                    stream.copyToHost(range.buffer(), range.offset(), host);
                }
                assertArrayEquals(slice(5000, 10_000), host.array());
            }
            finally {
                resident.forEach(range -> range.buffer().close());
            }
        }
    }

    private static void assertReadsLikeTheFile(DeviceParquetDataSource source)
            throws IOException
    {
        Map<String, DiskRange> ranges = new LinkedHashMap<>();
        ranges.put("head", new DiskRange(3, 1000));
        ranges.put("near", new DiskRange(1030, 77));
        ranges.put("middle", new DiskRange(700_001, 500_000));
        ranges.put("tail", new DiskRange(DATA.length - 4100, 4100));
        Map<String, ByteBuffer> buffers = source.planRead(ranges);
        for (Map.Entry<String, DiskRange> range : ranges.entrySet()) {
            ByteBuffer buffer = buffers.get(range.getKey());
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);
            assertArrayEquals(slice(range.getValue().position(), range.getValue().length()), bytes, range.getKey());
        }
        ByteBuffer unplanned = source.readFully(12_345, 3);
        assertEquals(DATA[12_345], unplanned.get());
        ByteBuffer tail = source.readTail(10);
        assertEquals(DATA[DATA.length - 10], tail.get());
    }

    private static byte[] slice(long position, int length)
    {
        byte[] bytes = new byte[length];
        System.arraycopy(DATA, (int) position, bytes, 0, length);
        return bytes;
    }

    static boolean directIoWorks()
    {
        try (FileChannel ignored = FileChannel.open(file, StandardOpenOption.READ, ExtendedOpenOption.DIRECT)) {
            return true;
        }
        catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }
}
