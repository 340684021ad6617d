package dev.ferry.gds.decode;

import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.util.HadoopCodecs;

/**
 * parquet-mr's CPU codecs for a device decoder's pages that end up decompressed on the host, made on first use and
 * released with the decoder: pages given back to the CPU are decompressed as the CPU decoder reaches them, so the
 * codecs must outlive the chunk's start.
 */
final class HostCodecs
{
    private CompressionCodecFactory codecs;

    CompressionCodecFactory get()
    {
        if (codecs == null) {
            codecs = HadoopCodecs.newFactory(0);
        }
        return codecs;
    }

    void release()
    {
        if (codecs != null) {
            codecs.release();
            codecs = null;
        }
    }
}
