package dev.ferry.gds.io;

import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import org.xerial.snappy.Snappy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.ArrayBlockingQueue;

import static java.util.Objects.requireNonNull;

/**
 * parquet-mr's codecs, refusing pages whose header claims more uncompressed bytes than
 * {@code maxPageBytes}: decompression allocates what the header says before reading a byte, so a
 * corrupt header would otherwise allocate without bound.
 *
 * <p>SNAPPY and ZSTD pages are decompressed in one call of snappy-java / zstd-jni (both ship with
 * Spark) from the page bytes into an array of the size the header gives, instead of through
 * parquet-mr's Hadoop-style decompressor streams, which allocate a stream and copy through an
 * intermediate buffer per page. Parquet SNAPPY pages are raw snappy blocks and ZSTD pages whole zstd
 * frames, so the one-shot calls read exactly what the streams read. ZSTD pages are decompressed
 * with a zstd context borrowed from a small shared pool rather than zstd-jni's static call, which
 * creates and frees a native context (and its buffers) per page.
 */
public final class BoundedCodecFactory
        implements CompressionCodecFactory
{
    // Idle zstd contexts, kept for the next page; past the bound a returned context is closed.
    private static final ArrayBlockingQueue<ZstdDecompressCtx> ZSTD_CONTEXTS = new ArrayBlockingQueue<>(64);

    private final CompressionCodecFactory delegate;
    private final long maxPageBytes;
    private final PageArrays pageArrays = new PageArrays();

    public BoundedCodecFactory(CompressionCodecFactory delegate, long maxPageBytes)
    {
        this.delegate = requireNonNull(delegate, "delegate is null");
        if (maxPageBytes <= 0) {
            throw new IllegalArgumentException("maxPageBytes must be positive, got " + maxPageBytes);
        }
        this.maxPageBytes = maxPageBytes;
    }

    /**
     * The arrays SNAPPY and ZSTD pages are decompressed into; a decoder gives a page's array back
     * when it has moved past the page. One factory (and pool) serves one task's reader.
     */
    public PageArrays pageArrays()
    {
        return pageArrays;
    }

    @Override
    public BytesInputCompressor getCompressor(CompressionCodecName codec)
    {
        return delegate.getCompressor(codec);
    }

    @Override
    public BytesInputDecompressor getDecompressor(CompressionCodecName codec)
    {
        if (codec == CompressionCodecName.BROTLI) {
            return new BrotliDecompressor(maxPageBytes);
        }
        BytesInputDecompressor decompressor = delegate.getDecompressor(codec);
        return new BytesInputDecompressor()
        {
            @Override
            public BytesInput decompress(BytesInput bytes, int uncompressedSize)
                    throws IOException
            {
                check(codec, uncompressedSize);
                // Empty pages (a v2 page with no values) keep parquet-mr's handling.
                if ((codec == CompressionCodecName.SNAPPY || codec == CompressionCodecName.ZSTD) && bytes.size() > 0) {
                    return BytesInput.from(oneShot(codec, bytes, uncompressedSize), 0, uncompressedSize);
                }
                return decompressor.decompress(bytes, uncompressedSize);
            }

            @Override
            public void decompress(ByteBuffer input, int compressedSize, ByteBuffer output, int uncompressedSize)
                    throws IOException
            {
                check(codec, uncompressedSize);
                decompressor.decompress(input, compressedSize, output, uncompressedSize);
            }

            @Override
            public void release()
            {
                decompressor.release();
            }
        };
    }

    @Override
    public void release()
    {
        delegate.release();
    }

    // BytesInput.toByteBuffer() is deprecated only for a variant with a releaser, which heap pages do not need.
    @SuppressWarnings("deprecation")
    private byte[] oneShot(CompressionCodecName codec, BytesInput bytes, int uncompressedSize)
            throws IOException
    {
        ByteBuffer input = bytes.toByteBuffer();
        byte[] array;
        int offset;
        int length = input.remaining();
        if (input.hasArray()) {
            array = input.array();
            offset = input.arrayOffset() + input.position();
        }
        else {
            array = new byte[length];
            input.duplicate().get(array);
            offset = 0;
        }
        byte[] output = pageArrays.take(uncompressedSize);
        long produced;
        if (codec == CompressionCodecName.SNAPPY) {
            // The block's own length header must agree with the page header's, so the output array is exactly what snappy writes.
            if (Snappy.uncompressedLength(array, offset, length) != uncompressedSize) {
                throw new IOException("A SNAPPY page does not decompress to the " + uncompressedSize + " bytes its header claims");
            }
            produced = Snappy.uncompress(array, offset, length, output, 0);
        }
        else {
            produced = zstd(output, uncompressedSize, array, offset, length);
        }
        if (produced != uncompressedSize) {
            throw new IOException("A " + codec + " page decompressed to " + produced + " bytes; its header claims " + uncompressedSize);
        }
        return output;
    }

    private static long zstd(byte[] output, int uncompressedSize, byte[] array, int offset, int length)
            throws IOException
    {
        ZstdDecompressCtx context = ZSTD_CONTEXTS.poll();
        if (context == null) {
            context = new ZstdDecompressCtx();
        }
        boolean reusable = false;
        try {
            long produced = context.decompressByteArray(output, 0, uncompressedSize, array, offset, length);
            reusable = true;
            return produced;
        }
        catch (ZstdException e) {
            // A failed frame may leave the context mid-frame: it is closed, not pooled.
            throw new IOException("A ZSTD page cannot be decompressed: " + e.getMessage(), e);
        }
        finally {
            if (!reusable || !ZSTD_CONTEXTS.offer(context)) {
                context.close();
            }
        }
    }

    static void check(CompressionCodecName codec, int uncompressedSize, long maxPageBytes)
            throws IOException
    {
        if (uncompressedSize < 0 || uncompressedSize > maxPageBytes) {
            throw new IOException("A " + codec + " page claims " + uncompressedSize + " uncompressed bytes; the limit is " + maxPageBytes
                    + " (spark.ferry.gds.io.maxPageBytes)");
        }
    }

    private void check(CompressionCodecName codec, int uncompressedSize)
            throws IOException
    {
        check(codec, uncompressedSize, maxPageBytes);
    }
}
