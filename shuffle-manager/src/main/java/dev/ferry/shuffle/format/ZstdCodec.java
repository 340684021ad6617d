package dev.ferry.shuffle.format;

import java.nio.ByteBuffer;

import com.github.luben.zstd.Zstd;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.compression.CompressionUtil;

/** Arrow's ZSTD buffer codec on zstd-jni, which Spark ships; works on off-heap memory directly. */
final class ZstdCodec
        extends SkippingCompressionCodec
{
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
            long written = Zstd.compressDirectByteBuffer(target, 0, target.capacity(), source, 0, source.capacity(), level);
            if (Zstd.isError(written)) {
                throw new IllegalStateException("ZSTD compression failed: " + Zstd.getErrorName(written));
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
            long read = Zstd.decompressDirectByteBuffer(target, 0, target.capacity(), source, 0, source.capacity());
            if (Zstd.isError(read) || read != uncompressedLength) {
                throw new IllegalStateException("ZSTD frame of " + compressedLength + " bytes is corrupt: "
                        + (Zstd.isError(read) ? Zstd.getErrorName(read) : read + " bytes instead of " + uncompressedLength));
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
