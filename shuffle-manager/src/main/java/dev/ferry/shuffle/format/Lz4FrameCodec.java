package dev.ferry.shuffle.format;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4FrameInputStream;
import net.jpountz.lz4.LZ4SafeDecompressor;
import net.jpountz.xxhash.XXHash32;
import net.jpountz.xxhash.XXHashFactory;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.compression.CompressionUtil;

/**
 * Arrow's LZ4_FRAME buffer codec on lz4-java (which Spark ships), working on the Arrow buffers'
 * off-heap memory directly: the frame (magic, descriptor, blocks, end mark; LZ4 frame format
 * 1.6.x) is written here around lz4-java's block compressor, with no heap copies and no stream
 * objects per buffer. Reading takes the same direct path for frames with independent blocks and
 * no dictionary (what this writer and Arrow's C++ writer produce) and lz4-java's frame stream for
 * any other valid frame.
 */
final class Lz4FrameCodec
        extends SkippingCompressionCodec
{
    private static final int MAGIC = 0x184D2204;
    private static final int FLG_VERSION_MASK = 0xC0;
    private static final int FLG_VERSION = 0x40;
    private static final int FLG_BLOCK_INDEPENDENCE = 0x20;
    private static final int FLG_BLOCK_CHECKSUM = 0x10;
    private static final int FLG_CONTENT_SIZE = 0x08;
    private static final int FLG_DICTIONARY = 0x01;
    // Blocks of up to 4 MB (descriptor code 7): one block for almost every Arrow buffer here.
    private static final int BLOCK_SIZE = 4 << 20;
    private static final int BD = 7 << 4;
    private static final int UNCOMPRESSED_BLOCK = 0x80000000;
    private static final int HEADER_LENGTH = 7;

    private static final LZ4Compressor COMPRESSOR = LZ4Factory.fastestInstance().fastCompressor();
    private static final LZ4SafeDecompressor DECOMPRESSOR = LZ4Factory.fastestInstance().safeDecompressor();
    private static final XXHash32 HASH = XXHashFactory.fastestInstance().hash32();
    private static final int FLG = FLG_VERSION | FLG_BLOCK_INDEPENDENCE;
    private static final byte HEADER_CHECKSUM = headerChecksum(FLG, BD);

    Lz4FrameCodec(long minCompressBytes)
    {
        super(minCompressBytes);
    }

    /** The descriptor's checksum byte: the second byte of xxHash32 (seed 0) over FLG and BD. */
    static byte headerChecksum(int flg, int bd)
    {
        return (byte) (HASH.hash(new byte[] {(byte) flg, (byte) bd}, 0, 2, 0) >>> 8);
    }

    @Override
    protected ArrowBuf doCompress(BufferAllocator allocator, ArrowBuf uncompressedBuffer)
    {
        long length = uncompressedBuffer.writerIndex();
        int blocks = (int) Math.max(1, (length + BLOCK_SIZE - 1) / BLOCK_SIZE);
        long bound = CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH + HEADER_LENGTH + (long) blocks * Integer.BYTES
                + COMPRESSOR.maxCompressedLength(Math.toIntExact(Math.min(length, BLOCK_SIZE))) * (long) blocks + Integer.BYTES;
        ArrowBuf result = allocator.buffer(bound);
        try {
            ByteBuffer source = uncompressedBuffer.nioBuffer(0, Math.toIntExact(length));
            ByteBuffer target = result.nioBuffer(0, Math.toIntExact(bound)).order(ByteOrder.LITTLE_ENDIAN);
            int at = (int) CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH;
            target.putInt(at, MAGIC);
            target.put(at + 4, (byte) FLG);
            target.put(at + 5, (byte) BD);
            target.put(at + 6, HEADER_CHECKSUM);
            at += HEADER_LENGTH;
            for (int from = 0; from < length; from += BLOCK_SIZE) {
                int blockLength = (int) Math.min(BLOCK_SIZE, length - from);
                int compressed = COMPRESSOR.compress(source, from, blockLength, target, at + Integer.BYTES, target.capacity() - at - Integer.BYTES);
                if (compressed < blockLength) {
                    target.putInt(at, compressed);
                    at += Integer.BYTES + compressed;
                }
                else {
                    // Incompressible: the frame format stores the block as it is, flagged.
                    target.putInt(at, blockLength | UNCOMPRESSED_BLOCK);
                    result.setBytes(at + Integer.BYTES, uncompressedBuffer, from, blockLength);
                    at += Integer.BYTES + blockLength;
                }
            }
            target.putInt(at, 0);
            at += Integer.BYTES;
            result.writerIndex(at);
            return result;
        }
        catch (RuntimeException e) {
            result.close();
            throw e;
        }
    }

    @Override
    protected ArrowBuf doDecompress(BufferAllocator allocator, ArrowBuf compressedBuffer)
    {
        long uncompressedLength = readUncompressedLength(compressedBuffer);
        long compressedLength = compressedBuffer.writerIndex() - CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH;
        ArrowBuf result = allocator.buffer(uncompressedLength);
        try {
            ByteBuffer source = compressedBuffer.nioBuffer(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH, Math.toIntExact(compressedLength)).order(ByteOrder.LITTLE_ENDIAN);
            ByteBuffer target = result.nioBuffer(0, Math.toIntExact(uncompressedLength));
            if (!decompressDirect(source, target)) {
                decompressWithStream(compressedBuffer, compressedLength, result, uncompressedLength);
            }
            result.writerIndex(uncompressedLength);
            return result;
        }
        catch (RuntimeException e) {
            result.close();
            throw e;
        }
    }

    /** Decodes a frame with independent blocks and no dictionary into {@code target}; false for any other kind of frame. */
    private static boolean decompressDirect(ByteBuffer source, ByteBuffer target)
    {
        int limit = source.capacity();
        if (limit < HEADER_LENGTH + Integer.BYTES || source.getInt(0) != MAGIC) {
            throw new IllegalStateException("LZ4 frame of " + limit + " bytes is corrupt: no frame header");
        }
        int flg = source.get(4) & 0xFF;
        if ((flg & FLG_VERSION_MASK) != FLG_VERSION || (flg & FLG_BLOCK_INDEPENDENCE) == 0 || (flg & FLG_DICTIONARY) != 0) {
            return false;
        }
        int at = 6 + ((flg & FLG_CONTENT_SIZE) != 0 ? Long.BYTES : 0);
        // The descriptor checksum covers FLG, BD and the optional content size.
        if (source.get(at) != (byte) (HASH.hash(source, 4, at - 4, 0) >>> 8)) {
            throw new IllegalStateException("LZ4 frame of " + limit + " bytes is corrupt: header checksum mismatch");
        }
        at++;
        int blockChecksum = (flg & FLG_BLOCK_CHECKSUM) != 0 ? Integer.BYTES : 0;
        int written = 0;
        int capacity = target.capacity();
        try {
            while (true) {
                if (at + Integer.BYTES > limit) {
                    throw new IllegalStateException("LZ4 frame is corrupt: cut short at byte " + at);
                }
                int word = source.getInt(at);
                at += Integer.BYTES;
                if (word == 0) {
                    // The end mark. A content checksum after it is not verified here: the block header's
                    // checksum (when Spark's shuffle checksums are on) already covers every byte.
                    break;
                }
                int blockLength = word & ~UNCOMPRESSED_BLOCK;
                if (blockLength > limit - at) {
                    throw new IllegalStateException("LZ4 frame is corrupt: block of " + blockLength + " bytes overruns the frame");
                }
                if ((word & UNCOMPRESSED_BLOCK) != 0) {
                    if (blockLength > capacity - written) {
                        throw new IllegalStateException("LZ4 frame is corrupt: more than " + capacity + " bytes");
                    }
                    ByteBuffer block = source.duplicate();
                    block.limit(at + blockLength).position(at);
                    ByteBuffer out = target.duplicate();
                    out.position(written);
                    out.put(block);
                    written += blockLength;
                }
                else {
                    written += DECOMPRESSOR.decompress(source, at, blockLength, target, written, capacity - written);
                }
                at += blockLength + blockChecksum;
            }
        }
        catch (LZ4Exception e) {
            throw new IllegalStateException("LZ4 frame is corrupt: " + e.getMessage(), e);
        }
        if (written != capacity) {
            throw new IllegalStateException("LZ4 frame decompressed to " + written + " bytes, expected " + capacity);
        }
        return true;
    }

    private static void decompressWithStream(ArrowBuf compressedBuffer, long compressedLength, ArrowBuf result, long uncompressedLength)
    {
        byte[] input = heapCopy(compressedBuffer, CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH, compressedLength);
        byte[] output = new byte[Math.toIntExact(uncompressedLength)];
        try (InputStream in = new LZ4FrameInputStream(new ByteArrayInputStream(input))) {
            int read = in.readNBytes(output, 0, output.length);
            if (read != output.length || in.read() != -1) {
                throw new IllegalStateException("LZ4 frame decompressed to " + read + " bytes or more, expected " + uncompressedLength);
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException("LZ4 frame of " + compressedLength + " bytes is corrupt", e);
        }
        result.setBytes(0, output);
    }

    @Override
    public CompressionUtil.CodecType getCodecType()
    {
        return CompressionUtil.CodecType.LZ4_FRAME;
    }
}
