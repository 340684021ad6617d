package org.apache.hadoop.io.compress;

import com.aayushatharva.brotli4j.Brotli4jLoader;
import com.aayushatharva.brotli4j.decoder.BrotliInputStream;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Test-only: the Hadoop codec class parquet-mr names for BROTLI, which no Spark distribution ships,
 * decoding through brotli4j, so the corpus test can compare the gds reader's BROTLI decoding with
 * {@code spark.read.parquet} reading the same file. Read-only; the gds reader does not use it.
 */
public final class BrotliCodec
        implements CompressionCodec
{
    public BrotliCodec()
    {
        Brotli4jLoader.ensureAvailability();
    }

    @Override
    public CompressionInputStream createInputStream(InputStream in)
            throws IOException
    {
        InputStream brotli = new BrotliInputStream(in);
        return new CompressionInputStream(brotli)
        {
            @Override
            public int read()
                    throws IOException
            {
                return brotli.read();
            }

            @Override
            public int read(byte[] target, int offset, int length)
                    throws IOException
            {
                return brotli.read(target, offset, length);
            }

            @Override
            public void resetState()
            {
                throw new UnsupportedOperationException("resetState");
            }
        };
    }

    @Override
    public CompressionInputStream createInputStream(InputStream in, Decompressor decompressor)
            throws IOException
    {
        return createInputStream(in);
    }

    @Override
    public Class<? extends Decompressor> getDecompressorType()
    {
        return null;
    }

    @Override
    public Decompressor createDecompressor()
    {
        return null;
    }

    @Override
    public CompressionOutputStream createOutputStream(OutputStream out)
    {
        throw new UnsupportedOperationException("test codec: reading only");
    }

    @Override
    public CompressionOutputStream createOutputStream(OutputStream out, Compressor compressor)
    {
        throw new UnsupportedOperationException("test codec: reading only");
    }

    @Override
    public Class<? extends Compressor> getCompressorType()
    {
        return null;
    }

    @Override
    public Compressor createCompressor()
    {
        return null;
    }

    @Override
    public String getDefaultExtension()
    {
        return ".br";
    }
}
