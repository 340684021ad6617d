package dev.ferry.gds.io;

import com.aayushatharva.brotli4j.Brotli4jLoader;
import com.aayushatharva.brotli4j.decoder.BrotliInputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputDecompressor;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;

/**
 * BROTLI pages through brotli4j. Output is read into an array of exactly the size the page header
 * claims (bounded by {@code maxPageBytes} first), and a page that decompresses to more or fewer
 * bytes is refused, so a corrupt page cannot allocate without bound. Creating one fails when
 * brotli4j's natives cannot load on this platform, which the reader reports as an unavailable codec.
 */
final class BrotliDecompressor
        implements BytesInputDecompressor
{
    private final long maxPageBytes;

    BrotliDecompressor(long maxPageBytes)
    {
        Brotli4jLoader.ensureAvailability();
        this.maxPageBytes = maxPageBytes;
    }

    @Override
    public BytesInput decompress(BytesInput bytes, int uncompressedSize)
            throws IOException
    {
        BoundedCodecFactory.check(CompressionCodecName.BROTLI, uncompressedSize, maxPageBytes);
        byte[] output = new byte[uncompressedSize];
        try (InputStream in = new BrotliInputStream(bytes.toInputStream())) {
            int filled = 0;
            while (filled < uncompressedSize) {
                int read = in.read(output, filled, uncompressedSize - filled);
                if (read < 0) {
                    throw new IOException("A BROTLI page decompressed to " + filled + " bytes; its header claims " + uncompressedSize);
                }
                filled += read;
            }
            if (in.read() >= 0) {
                throw new IOException("A BROTLI page decompresses to more than the " + uncompressedSize + " bytes its header claims");
            }
        }
        return BytesInput.from(output);
    }

    // BytesInput.toByteBuffer() is deprecated only for a variant with a releaser, which heap pages do not need.
    @SuppressWarnings("deprecation")
    @Override
    public void decompress(ByteBuffer input, int compressedSize, ByteBuffer output, int uncompressedSize)
            throws IOException
    {
        byte[] compressed = new byte[compressedSize];
        input.duplicate().get(compressed);
        output.put(decompress(BytesInput.from(compressed), uncompressedSize).toByteBuffer());
    }

    @Override
    public void release()
    {
    }
}
