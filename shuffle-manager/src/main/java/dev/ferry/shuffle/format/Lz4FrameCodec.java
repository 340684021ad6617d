package dev.ferry.shuffle.format;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

import net.jpountz.lz4.LZ4FrameInputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.compression.CompressionUtil;

/** Arrow's LZ4_FRAME buffer codec on lz4-java, which Spark ships. */
final class Lz4FrameCodec
        extends SkippingCompressionCodec
{
    Lz4FrameCodec(long minCompressBytes)
    {
        super(minCompressBytes);
    }

    @Override
    protected ArrowBuf doCompress(BufferAllocator allocator, ArrowBuf uncompressedBuffer)
    {
        long length = uncompressedBuffer.writerIndex();
        byte[] input = heapCopy(uncompressedBuffer, 0, length);
        ByteArrayOutputStream compressed = new ByteArrayOutputStream((int) Math.min(Integer.MAX_VALUE - 16, length / 2 + 64));
        try (LZ4FrameOutputStream out = new LZ4FrameOutputStream(compressed, LZ4FrameOutputStream.BLOCKSIZE.SIZE_64KB)) {
            out.write(input);
        }
        catch (IOException e) {
            throw new UncheckedIOException("LZ4 compression of " + length + " bytes failed", e);
        }
        byte[] bytes = compressed.toByteArray();
        ArrowBuf result = allocator.buffer(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH + bytes.length);
        result.setBytes(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH, bytes);
        result.writerIndex(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH + bytes.length);
        return result;
    }

    @Override
    protected ArrowBuf doDecompress(BufferAllocator allocator, ArrowBuf compressedBuffer)
    {
        long uncompressedLength = readUncompressedLength(compressedBuffer);
        long compressedLength = compressedBuffer.writerIndex() - CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH;
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
        ArrowBuf result = allocator.buffer(uncompressedLength);
        result.setBytes(0, output);
        result.writerIndex(uncompressedLength);
        return result;
    }

    @Override
    public CompressionUtil.CodecType getCodecType()
    {
        return CompressionUtil.CodecType.LZ4_FRAME;
    }
}
