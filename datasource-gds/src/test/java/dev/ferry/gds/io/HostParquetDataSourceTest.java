package dev.ferry.gds.io;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HostParquetDataSourceTest
{
    @Test
    void parallelPositionalReadsReturnTheFileBytes(@TempDir Path directory)
            throws Exception
    {
        byte[] data = new byte[3_000_000];
        new Random(7).nextBytes(data);
        Path file = directory.resolve("data.bin");
        Files.write(file, data);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try (HostParquetDataSource source = HostParquetDataSource.open(file, "data.bin", new ReadPlanning(1024, 8 << 20, 256 * 1024), Optional.of(pool))) {
            assertEquals(IoRoute.HOST, source.route());
            assertEquals(data.length, source.size());
            Map<Integer, ByteBuffer> read = source.planRead(Map.of(1, new DiskRange(0, 2_000_000), 2, new DiskRange(2_000_500, 999_500)));
            byte[] first = AbstractParquetDataSourceTest.bytes(read.get(1));
            byte[] second = AbstractParquetDataSourceTest.bytes(read.get(2));
            assertArrayEquals(java.util.Arrays.copyOfRange(data, 0, 2_000_000), first);
            assertArrayEquals(java.util.Arrays.copyOfRange(data, 2_000_500, 3_000_000), second);
            assertEquals(1, source.counters().requests(), "a 500 byte gap is read rather than paid for with a second request");
            assertEquals(data.length, source.counters().bytes());
            assertTrue(source.counters().waitNanos() > 0);
        }
        finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aMissingFileFailsToOpen(@TempDir Path directory)
    {
        assertThrows(NoSuchFileException.class, () -> HostParquetDataSource.open(directory.resolve("gone"), "gone", ReadPlanning.defaults(), Optional.empty()));
    }
}
