package dev.ferry.gds.io;

import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import java.io.IOException;
import java.nio.ByteBuffer;

import static java.util.Objects.requireNonNull;

/**
 * parquet-mr's codecs, refusing pages whose header claims more uncompressed bytes than
 * {@code maxPageBytes}: decompression allocates what the header says before reading a byte, so a
 * corrupt header would otherwise allocate without bound.
 */
public final class BoundedCodecFactory
        implements CompressionCodecFactory
{
    private final CompressionCodecFactory delegate;
    private final long maxPageBytes;

    public BoundedCodecFactory(CompressionCodecFactory delegate, long maxPageBytes)
    {
        this.delegate = requireNonNull(delegate, "delegate is null");
        if (maxPageBytes <= 0) {
            throw new IllegalArgumentException("maxPageBytes must be positive, got " + maxPageBytes);
        }
        this.maxPageBytes = maxPageBytes;
    }

    @Override
    public BytesInputCompressor getCompressor(CompressionCodecName codec)
    {
        return delegate.getCompressor(codec);
    }

    @Override
    public BytesInputDecompressor getDecompressor(CompressionCodecName codec)
    {
        BytesInputDecompressor decompressor = delegate.getDecompressor(codec);
        return new BytesInputDecompressor()
        {
            @Override
            public BytesInput decompress(BytesInput bytes, int uncompressedSize)
                    throws IOException
            {
                check(codec, uncompressedSize);
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

    private void check(CompressionCodecName codec, int uncompressedSize)
            throws IOException
    {
        if (uncompressedSize < 0 || uncompressedSize > maxPageBytes) {
            throw new IOException("A " + codec + " page claims " + uncompressedSize + " uncompressed bytes; the limit is " + maxPageBytes
                    + " (spark.ferry.gds.io.maxPageBytes)");
        }
    }
}
