package dev.ferry.gds.io;

import com.github.luben.zstd.Zstd;
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

    // zstd's ZSTD_CONTENTSIZE_ERROR; ZSTD_CONTENTSIZE_UNKNOWN is -1.
    private static final long ZSTD_CONTENT_SIZE_ERROR = -2;

    private final CompressionCodecFactory delegate;
    private final long maxPageBytes;
    private final PageArrays pageArrays = new PageArrays();
    private final CompressedPageCapture capture = new CompressedPageCapture();

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

    /**
     * Where the device decoder defers the decompression of the chunk it is reading: while its window
     * is open, compressed bodies are kept compressed (after the same size checks) and decompressed on
     * the CPU only if read.
     */
    public CompressedPageCapture capture()
    {
        return capture;
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
                if (capture.capturing() && codec != CompressionCodecName.UNCOMPRESSED && bytes.size() > 0) {
                    checkRatio(codec, bytes.size(), uncompressedSize);
                    // Decompressed later, if at all, into an array of its own: the body may be read after the pool has moved on.
                    return capture.defer(codec, bytes, uncompressedSize, (compressed, size) -> decompressNow(compressed, size, false));
                }
                return decompressNow(bytes, uncompressedSize, true);
            }

            private BytesInput decompressNow(BytesInput bytes, int uncompressedSize, boolean pooled)
                    throws IOException
            {
                // Empty pages (a v2 page with no values) keep parquet-mr's handling.
                if ((codec == CompressionCodecName.SNAPPY || codec == CompressionCodecName.ZSTD) && bytes.size() > 0) {
                    // Exactly the page: the pooled array is rounded up and may hold an earlier page past uncompressedSize.
                    return BytesInput.from(ByteBuffer.wrap(oneShot(codec, bytes, uncompressedSize, pooled), 0, uncompressedSize).slice());
                }
                checkRatio(codec, bytes.size(), uncompressedSize);
                return exactly(codec, decompressor.decompress(bytes, uncompressedSize), uncompressedSize);
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
    private byte[] oneShot(CompressionCodecName codec, BytesInput bytes, int uncompressedSize, boolean pooled)
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
        // The codec's own length must agree with the page header's before the output array is taken:
        // a header claiming half a gigabyte over a few kilobytes of page would otherwise allocate it.
        if (codec == CompressionCodecName.SNAPPY) {
            int claimed = Snappy.uncompressedLength(array, offset, length);
            if (claimed != uncompressedSize) {
                throw new IOException("A SNAPPY page of " + length + " bytes decompresses to " + claimed + " bytes by its own header; the page header claims "
                        + uncompressedSize);
            }
        }
        else {
            checkZstdFrame(array, offset, length, uncompressedSize);
        }
        byte[] output = pooled ? pageArrays.take(uncompressedSize) : new byte[uncompressedSize];
        long produced = codec == CompressionCodecName.SNAPPY
                ? Snappy.uncompress(array, offset, length, output, 0)
                : zstd(output, uncompressedSize, array, offset, length);
        if (produced != uncompressedSize) {
            throw new IOException("A " + codec + " page decompressed to " + produced + " bytes; its header claims " + uncompressedSize);
        }
        return output;
    }

    // A frame that records its content size (zstd's one-shot writers do) must record the page's; streaming
    // writers leave it out, and such a page is bounded by what its blocks' headers say they regenerate.
    private static void checkZstdFrame(byte[] array, int offset, int length, int uncompressedSize)
            throws IOException
    {
        long contentSize;
        try {
            contentSize = Zstd.getFrameContentSize(array, offset, length);
        }
        catch (ZstdException e) {
            throw new IOException("A ZSTD page of " + length + " bytes does not start with a zstd frame: " + e.getMessage(), e);
        }
        if (contentSize == ZSTD_CONTENT_SIZE_ERROR) {
            throw new IOException("A ZSTD page of " + length + " bytes does not start with a zstd frame");
        }
        if (contentSize >= 0 && contentSize != uncompressedSize) {
            throw new IOException("A ZSTD page of " + length + " bytes holds a frame of " + contentSize + " bytes; the page header claims " + uncompressedSize);
        }
        long bound = ZstdFrames.maxDecompressedSize(array, offset, length);
        if (bound >= 0 && bound < uncompressedSize) {
            throw new IOException("A ZSTD page of " + length + " bytes decompresses to at most " + bound + " bytes by its blocks' headers; the page header claims "
                    + uncompressedSize);
        }
    }

    // GZIP and LZ4 record no size parquet-mr reads before it allocates the claim; their formats bound what a
    // page can expand to: DEFLATE at most 1032 bytes per byte, LZ4 at most 255 (a match's length bytes).
    private static void checkRatio(CompressionCodecName codec, long compressedSize, int uncompressedSize)
            throws IOException
    {
        long ratio = switch (codec) {
            case GZIP -> 1032;
            case LZ4, LZ4_RAW -> 255;
            default -> 0;
        };
        // A little slack for the formats' fixed headers and an empty page's few bytes.
        if (ratio > 0 && uncompressedSize > compressedSize * ratio + 1024) {
            throw new IOException("A " + codec + " page of " + compressedSize + " bytes cannot decompress to the " + uncompressedSize
                    + " bytes its header claims (the format expands at most " + ratio + "x)");
        }
    }

    // Pages of the other codecs (and uncompressed pages) as a buffer of exactly the page's bytes: a view of a
    // fetched range would otherwise show the bytes after the page to a decoder that reads to its capacity.
    @SuppressWarnings("deprecation")
    private static BytesInput exactly(CompressionCodecName codec, BytesInput page, int uncompressedSize)
            throws IOException
    {
        ByteBuffer buffer = page.toByteBuffer();
        if (buffer.remaining() != uncompressedSize) {
            throw new IOException("A " + codec + " page decompressed to " + buffer.remaining() + " bytes; its header claims " + uncompressedSize);
        }
        return BytesInput.from(buffer.slice());
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
