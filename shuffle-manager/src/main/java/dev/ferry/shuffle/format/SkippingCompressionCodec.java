package dev.ferry.shuffle.format;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.compression.AbstractCompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;

/**
 * Arrow's buffer compression contract (each buffer prefixed by its uncompressed length, -1 for a
 * buffer sent as it is) plus one rule: buffers below a minimum size are never compressed, since
 * a codec frame costs more than it can save on them. Arrow itself already sends a buffer raw when
 * its compressed form is not smaller.
 */
abstract class SkippingCompressionCodec
        extends AbstractCompressionCodec
{
    private final long minCompressBytes;

    SkippingCompressionCodec(long minCompressBytes)
    {
        this.minCompressBytes = minCompressBytes;
    }

    @Override
    public ArrowBuf compress(BufferAllocator allocator, ArrowBuf uncompressedBuffer)
    {
        long length = uncompressedBuffer.writerIndex();
        if (length > 0 && length < minCompressBytes) {
            // Same contract as the superclass: the input reference is consumed.
            ArrowBuf raw = CompressionUtil.packageRawBuffer(allocator, uncompressedBuffer);
            uncompressedBuffer.close();
            return raw;
        }
        return super.compress(allocator, uncompressedBuffer);
    }

    /** Bytes of {@code buffer} from 0 to its writer index, copied to the heap for stream codecs. */
    static byte[] heapCopy(ArrowBuf buffer, long offset, long length)
    {
        byte[] bytes = new byte[Math.toIntExact(length)];
        buffer.getBytes(offset, bytes);
        return bytes;
    }
}
