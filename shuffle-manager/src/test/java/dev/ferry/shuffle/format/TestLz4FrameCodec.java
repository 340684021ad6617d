package dev.ferry.shuffle.format;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Random;

import net.jpountz.lz4.LZ4FrameInputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The direct LZ4 frame codec writes standard frames (lz4-java's frame stream reads them), reads
 * frames written by that stream with any of its options, and rejects damaged frames.
 */
class TestLz4FrameCodec
{
    @Test
    void roundTripsSizesAcrossBlockBoundaries()
    {
        try (BufferAllocator allocator = new RootAllocator()) {
            Lz4FrameCodec codec = new Lz4FrameCodec(0);
            Random random = new Random(11);
            for (int length : new int[] {1, 7, 100, 65_536, 300_000, 4 << 20, (4 << 20) + 1, 9_000_001}) {
                byte[] data = compressible(random, length);
                assertArrayEquals(data, roundTrip(allocator, codec, data), "length " + length);
            }
            assertEquals(0, allocator.getAllocatedMemory());
        }
    }

    @Test
    void incompressibleBlocksAreStoredRawAndReadBack()
    {
        try (BufferAllocator allocator = new RootAllocator()) {
            byte[] noise = new byte[(4 << 20) + 1000];
            new Random(5).nextBytes(noise);
            // A first block of noise (stored raw) and a compressible second one (Arrow itself sends a whole buffer raw
            // when its frame is not smaller, so the frame must win overall).
            byte[] data = new byte[noise.length + 2_000_000];
            System.arraycopy(noise, 0, data, 0, noise.length);
            assertArrayEquals(data, roundTrip(allocator, new Lz4FrameCodec(0), data));
            assertArrayEquals(data, readWithStream(compressedFrame(allocator, new Lz4FrameCodec(0), data), data.length));
            assertEquals(0, allocator.getAllocatedMemory());
        }
    }

    @Test
    void framesAreReadableByLz4JavasFrameStream()
            throws IOException
    {
        try (BufferAllocator allocator = new RootAllocator()) {
            byte[] data = compressible(new Random(3), 5_000_000);
            byte[] frame = compressedFrame(allocator, new Lz4FrameCodec(0), data);
            assertArrayEquals(data, readWithStream(frame, data.length));
        }
    }

    @Test
    void readsFramesWrittenByLz4JavasFrameStream()
            throws IOException
    {
        byte[] data = compressible(new Random(9), 700_000);
        try (BufferAllocator allocator = new RootAllocator()) {
            Lz4FrameCodec codec = new Lz4FrameCodec(0);
            // Independent blocks (what the direct path reads) with each optional field of the frame format.
            LZ4FrameOutputStream.FLG.Bits[][] variants = {
                    {LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE},
                    {LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE, LZ4FrameOutputStream.FLG.Bits.BLOCK_CHECKSUM, LZ4FrameOutputStream.FLG.Bits.CONTENT_CHECKSUM},
                    {LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE, LZ4FrameOutputStream.FLG.Bits.CONTENT_SIZE},
                    {LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE, LZ4FrameOutputStream.FLG.Bits.CONTENT_SIZE, LZ4FrameOutputStream.FLG.Bits.CONTENT_CHECKSUM},
            };
            for (LZ4FrameOutputStream.FLG.Bits[] bits : variants) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                try (LZ4FrameOutputStream stream = new LZ4FrameOutputStream(out, LZ4FrameOutputStream.BLOCKSIZE.SIZE_64KB, data.length, bits)) {
                    stream.write(data);
                }
                assertArrayEquals(data, decompressFrame(allocator, codec, out.toByteArray(), data.length), java.util.Arrays.toString(bits));
            }
            assertEquals(0, allocator.getAllocatedMemory());
        }
    }

    @Test
    void damagedFramesAreRejected()
    {
        try (BufferAllocator allocator = new RootAllocator()) {
            Lz4FrameCodec codec = new Lz4FrameCodec(0);
            byte[] data = compressible(new Random(1), 50_000);
            byte[] frame = compressedFrame(allocator, codec, data);
            // Magic, descriptor checksum, a block length beyond the frame, a missing end mark.
            int[] positions = {0, 6, 7 + 3};
            for (int position : positions) {
                byte[] damaged = frame.clone();
                damaged[position] ^= 0x40;
                assertThrows(RuntimeException.class, () -> decompressFrame(allocator, codec, damaged, data.length), "flip at " + position);
            }
            byte[] truncated = java.util.Arrays.copyOf(frame, frame.length - 4);
            assertThrows(RuntimeException.class, () -> decompressFrame(allocator, codec, truncated, data.length));
            assertEquals(0, allocator.getAllocatedMemory());
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

    private static byte[] readWithStream(byte[] frame, int length)
    {
        try (InputStream in = new LZ4FrameInputStream(new ByteArrayInputStream(frame))) {
            byte[] out = in.readAllBytes();
            assertEquals(length, out.length);
            return out;
        }
        catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static byte[] compressedFrame(BufferAllocator allocator, Lz4FrameCodec codec, byte[] data)
    {
        ArrowBuf input = allocator.buffer(data.length);
        input.setBytes(0, data);
        input.writerIndex(data.length);
        try (ArrowBuf compressed = codec.compress(allocator, input)) {
            assertEquals(data.length, compressed.getLong(0), "sent compressed");
            byte[] frame = new byte[Math.toIntExact(compressed.writerIndex() - CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH)];
            compressed.getBytes(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH, frame);
            return frame;
        }
    }

    private static byte[] decompressFrame(BufferAllocator allocator, Lz4FrameCodec codec, byte[] frame, long length)
    {
        ArrowBuf compressed = allocator.buffer(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH + frame.length);
        compressed.setLong(0, length);
        compressed.setBytes(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH, frame);
        compressed.writerIndex(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH + frame.length);
        ArrowBuf restored;
        try {
            restored = codec.decompress(allocator, compressed);
        }
        catch (RuntimeException e) {
            // A failed decompression leaves the input with the caller (Arrow's codec contract).
            compressed.close();
            throw e;
        }
        try (restored) {
            byte[] out = new byte[Math.toIntExact(restored.writerIndex())];
            restored.getBytes(0, out);
            return out;
        }
    }

    /** Through Arrow's contract: tiny buffers come back marked raw (-1), the rest as frames. */
    private static byte[] roundTrip(BufferAllocator allocator, Lz4FrameCodec codec, byte[] data)
    {
        ArrowBuf input = allocator.buffer(data.length);
        input.setBytes(0, data);
        input.writerIndex(data.length);
        ArrowBuf compressed = codec.compress(allocator, input);
        try (ArrowBuf restored = codec.decompress(allocator, compressed)) {
            byte[] out = new byte[Math.toIntExact(restored.writerIndex())];
            restored.getBytes(0, out);
            return out;
        }
    }
}
