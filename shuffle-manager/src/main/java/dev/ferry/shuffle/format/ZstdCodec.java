package dev.ferry.shuffle.format;

import java.nio.ByteBuffer;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.compression.CompressionUtil;

/**
 * Arrow's ZSTD buffer codec on zstd-jni, which Spark ships; works on off-heap memory directly.
 * Compression and decompression contexts are kept per thread and reused for every buffer: zstd-jni's
 * static one-shot calls create and free a native context (and its workspace) per call, about 10
 * to 20 us per compressed buffer of Ferry's typical 4 to 28 KB. A context holds no data between
 * calls (each buffer is its own complete frame), so the bytes are the same either way.
 */
final class ZstdCodec
        extends SkippingCompressionCodec
{
    // Task threads are pooled, so these live as long as the executor's threads; one context each.
    private static final ThreadLocal<ZstdCompressCtx> COMPRESS = ThreadLocal.withInitial(ZstdCompressCtx::new);
    private static final ThreadLocal<ZstdDecompressCtx> DECOMPRESS = ThreadLocal.withInitial(ZstdDecompressCtx::new);

    private final int level;

    ZstdCodec(long minCompressBytes, int level)
    {
        super(minCompressBytes);
        this.level = level;
    }

    @Override
    protected ArrowBuf doCompress(BufferAllocator allocator, ArrowBuf uncompressedBuffer)
    {
        long length = uncompressedBuffer.writerIndex();
        long bound = Zstd.compressBound(length);
        ArrowBuf result = allocator.buffer(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH + bound);
        try {
            ByteBuffer target = result.nioBuffer(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH, Math.toIntExact(bound));
            ByteBuffer source = uncompressedBuffer.nioBuffer(0, Math.toIntExact(length));
            long written;
            try {
                ZstdCompressCtx context = COMPRESS.get();
                context.setLevel(level);
                written = context.compressDirectByteBuffer(target, 0, target.capacity(), source, 0, source.capacity());
            }
            catch (ZstdException e) {
                throw new IllegalStateException("ZSTD compression failed: " + e.getMessage(), e);
            }
            result.writerIndex(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH + written);
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
            ByteBuffer target = result.nioBuffer(0, Math.toIntExact(uncompressedLength));
            ByteBuffer source = compressedBuffer.nioBuffer(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH, Math.toIntExact(compressedLength));
            long read;
            try {
                read = DECOMPRESS.get().decompressDirectByteBuffer(target, 0, target.capacity(), source, 0, source.capacity());
            }
            catch (ZstdException e) {
                throw new IllegalStateException("ZSTD frame of " + compressedLength + " bytes is corrupt: " + e.getMessage(), e);
            }
            if (read != uncompressedLength) {
                throw new IllegalStateException("ZSTD frame of " + compressedLength + " bytes is corrupt: " + read + " bytes instead of " + uncompressedLength);
            }
            result.writerIndex(uncompressedLength);
            return result;
        }
        catch (RuntimeException e) {
            result.close();
            throw e;
        }
    }

    @Override
    public CompressionUtil.CodecType getCodecType()
    {
        return CompressionUtil.CodecType.ZSTD;
    }
}
