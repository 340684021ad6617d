package dev.ferry.gds.io;

import dev.ferry.gds.parquet.CorruptParquetException;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AbstractParquetDataSourceTest
{
    private static final byte[] DATA = randomBytes(1 << 20);

    @Test
    void nearbyRangesCoalesceAndFarOnesDoNot()
    {
        TestingParquetDataSource source = new TestingParquetDataSource(DATA, new ReadPlanning(100, 10_000, 1 << 20), Optional.empty());
        List<DiskRange> plan = source.plan(List.of(new DiskRange(500, 50), new DiskRange(0, 100), new DiskRange(150, 100), new DiskRange(5000, 10)));
        assertEquals(List.of(new DiskRange(0, 250), new DiskRange(500, 50), new DiskRange(5000, 10)), plan);
    }

    @Test
    void coalescingStopsAtTheMergedReadLimit()
    {
        TestingParquetDataSource source = new TestingParquetDataSource(DATA, new ReadPlanning(1000, 300, 1 << 20), Optional.empty());
        List<DiskRange> plan = source.plan(List.of(new DiskRange(0, 200), new DiskRange(210, 80), new DiskRange(300, 100)));
        assertEquals(List.of(new DiskRange(0, 290), new DiskRange(300, 100)), plan);
    }

    @Test
    void plannedReadReturnsEachRangesBytesAndCountsMergedRequests()
            throws Exception
    {
        TestingParquetDataSource source = new TestingParquetDataSource(DATA, new ReadPlanning(64, 1 << 20, 1 << 20), Optional.empty());
        Map<String, DiskRange> ranges = new LinkedHashMap<>();
        ranges.put("a", new DiskRange(10, 30));
        ranges.put("b", new DiskRange(50, 20));
        ranges.put("c", new DiskRange(400_000, 1000));
        Map<String, ByteBuffer> buffers = source.planRead(ranges);
        for (Map.Entry<String, DiskRange> range : ranges.entrySet()) {
            assertArrayEquals(expected(range.getValue()), bytes(buffers.get(range.getKey())), range.getKey());
        }
        assertEquals(List.of(new DiskRange(10, 60), new DiskRange(400_000, 1000)), source.requests());
        assertEquals(2, source.counters().requests());
        assertEquals(1060, source.counters().bytes());
        assertEquals(0, source.counters().unplannedReads());
    }

    @Test
    void largeRangesAreReadInParallelSlices()
            throws Exception
    {
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            TestingParquetDataSource source = new TestingParquetDataSource(DATA, new ReadPlanning(0, 1 << 20, 100_000), Optional.of(pool));
            DiskRange range = new DiskRange(1234, 950_000);
            ByteBuffer buffer = source.planRead(Map.of("all", range)).get("all");
            assertArrayEquals(expected(range), bytes(buffer));
            assertEquals(10, source.requests().size());
            assertTrue(source.requests().stream().allMatch(request -> request.length() <= 100_000), source.requests().toString());
            assertEquals(1, source.counters().requests(), "one planned request, split into slices");
        }
        finally {
            pool.shutdownNow();
        }
    }

    @Test
    void readsBeyondTheEndNameTheFile()
    {
        TestingParquetDataSource source = new TestingParquetDataSource(new byte[100], ReadPlanning.defaults(), Optional.empty());
        CorruptParquetException error = assertThrows(CorruptParquetException.class, () -> source.readFully(90, 20));
        assertTrue(error.getMessage().contains("memory:test") && error.getMessage().contains("beyond the end"), error.getMessage());
        assertThrows(CorruptParquetException.class, () -> source.planRead(Map.of("x", new DiskRange(50, 51))));
    }

    @Test
    void tailIsTheLastBytesOrTheWholeFile()
            throws Exception
    {
        TestingParquetDataSource source = new TestingParquetDataSource(DATA, ReadPlanning.defaults(), Optional.empty());
        assertArrayEquals(expected(new DiskRange(DATA.length - 16, 16)), bytes(source.readTail(16)));
        TestingParquetDataSource small = new TestingParquetDataSource(new byte[] {1, 2, 3}, ReadPlanning.defaults(), Optional.empty());
        assertArrayEquals(new byte[] {1, 2, 3}, bytes(small.readTail(64)));
    }

    static byte[] bytes(ByteBuffer buffer)
    {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    private static byte[] expected(DiskRange range)
    {
        byte[] bytes = new byte[range.length()];
        System.arraycopy(DATA, (int) range.position(), bytes, 0, range.length());
        return bytes;
    }

    private static byte[] randomBytes(int length)
    {
        byte[] bytes = new byte[length];
        new Random(42).nextBytes(bytes);
        return bytes;
    }
}
