package dev.ferry.shuffle.format;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import com.github.luben.zstd.Zstd;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The codec keeps one zstd context per thread; reuse must not change what is written or read back. */
class TestZstdCodec
{
    @Test
    void reusedContextsRoundTripAcrossLevelsAndSizes()
    {
        try (BufferAllocator allocator = new RootAllocator()) {
            Random random = new Random(7);
            ZstdCodec fast = new ZstdCodec(0, 1);
            ZstdCodec strong = new ZstdCodec(0, 9);
            for (int i = 0; i < 200; i++) {
                byte[] data = compressible(random, 1 + random.nextInt(i % 10 == 0 ? 300_000 : 5_000));
                ZstdCodec codec = i % 2 == 0 ? fast : strong;
                assertArrayEquals(data, roundTrip(allocator, codec, data), "buffer " + i);
            }
            assertEquals(0, allocator.getAllocatedMemory());
        }
    }

    @Test
    void framesAreStandardZstdAtTheRequestedLevel()
    {
        try (BufferAllocator allocator = new RootAllocator()) {
            byte[] data = compressible(new Random(3), 100_000);
            for (int level : new int[] {1, 3, 9, 1}) {
                byte[] frame = compressedFrame(allocator, new ZstdCodec(0, level), data);
                // The same bytes zstd's one-shot call produces at that level, and readable by it.
                assertArrayEquals(Zstd.compress(data, level), frame, "level " + level);
                assertArrayEquals(data, Zstd.decompress(frame, data.length));
            }
        }
    }

    @Test
    void contextsStayUsableAfterACorruptFrame()
    {
        try (BufferAllocator allocator = new RootAllocator()) {
            ZstdCodec codec = new ZstdCodec(0, 1);
            byte[] data = compressible(new Random(5), 50_000);
            ArrowBuf compressed = compress(allocator, codec, data);
            // Damage the frame's magic number (right after the 8-byte uncompressed length).
            compressed.setByte(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH, compressed.getByte(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH) ^ 0x55);
            assertThrows(IllegalStateException.class, () -> codec.decompress(allocator, compressed));
            // A failed decompression leaves the input with the caller (Arrow's codec contract).
            compressed.close();
            assertArrayEquals(data, roundTrip(allocator, codec, data));
            assertEquals(0, allocator.getAllocatedMemory());
        }
    }

    @Test
    void threadsEachGetTheirOwnContext()
            throws Exception
    {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try (BufferAllocator allocator = new RootAllocator()) {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int seed = t;
                futures.add(pool.submit(() -> {
                    Random random = new Random(seed);
                    ZstdCodec codec = new ZstdCodec(0, 1 + seed);
                    for (int i = 0; i < 100; i++) {
                        byte[] data = compressible(random, 1 + random.nextInt(20_000));
                        assertArrayEquals(data, roundTrip(allocator, codec, data));
                    }
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get();
            }
            assertEquals(0, allocator.getAllocatedMemory());
        }
        finally {
            pool.shutdownNow();
        }
    }

    private static byte[] compressible(Random random, int length)
    {
        byte[] data = new byte[length];
        for (int i = 0; i < length; i++) {
            data[i] = (byte) (random.nextInt(8) == 0 ? random.nextInt() : 'a' + i % 7);
        }
        return data;
    }

    private static ArrowBuf compress(BufferAllocator allocator, ZstdCodec codec, byte[] data)
    {
        ArrowBuf input = allocator.buffer(data.length);
        input.setBytes(0, data);
        input.writerIndex(data.length);
        // Consumes the input reference.
        return codec.compress(allocator, input);
    }

    private static byte[] compressedFrame(BufferAllocator allocator, ZstdCodec codec, byte[] data)
    {
        try (ArrowBuf compressed = compress(allocator, codec, data)) {
            assertTrue(compressed.getLong(0) == data.length, "sent compressed");
            byte[] frame = new byte[Math.toIntExact(compressed.writerIndex() - CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH)];
            compressed.getBytes(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH, frame);
            return frame;
        }
    }

    private static byte[] roundTrip(BufferAllocator allocator, ZstdCodec codec, byte[] data)
    {
        ArrowBuf compressed = compress(allocator, codec, data);
        // Consumes the compressed reference.
        try (ArrowBuf restored = codec.decompress(allocator, compressed)) {
            byte[] out = new byte[Math.toIntExact(restored.writerIndex())];
            restored.getBytes(0, out);
            return out;
        }
    }
}
