package dev.ferry.gds.decode.cuda;

import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopCodecs;

import java.io.IOException;
import java.util.Optional;

/**
 * The batched page decompression of kernels that have no nvCOMP (the Java emulation, host-compiled
 * kernels): each page body is read out of the kernels' memory, decompressed on the CPU by
 * parquet-mr's codecs and written into its place in the kernels' memory, so the byte path (one
 * upload of compressed bodies, decompression from device memory into device memory) is the one
 * the GPU takes with nvCOMP. A page that fails is reported by index, as nvCOMP reports it.
 */
public final class HostPageDecompression
{
    private HostPageDecompression() {}

    /** The codecs nvCOMP's batched API takes (the same set, so the emulation falls back where a GPU would). */
    public static Optional<String> cannotDecompress(CompressionCodecName codec)
    {
        return switch (codec) {
            case SNAPPY, ZSTD, LZ4_RAW, GZIP -> Optional.empty();
            default -> Optional.of("codec " + codec + " has no nvCOMP decompressor");
        };
    }

    /** One body decompressed on the CPU with parquet-mr's codecs; fails unless it comes out at {@code uncompressedSize} bytes. */
    public static byte[] decompress(CompressionCodecFactory codecs, CompressionCodecName codec, byte[] compressed, int uncompressedSize)
            throws IOException
    {
        byte[] decompressed = codecs.getDecompressor(codec).decompress(BytesInput.from(compressed), uncompressedSize).toByteArray();
        if (decompressed.length != uncompressedSize) {
            throw new IOException(codec + " gave " + decompressed.length + " bytes, the page header says " + uncompressedSize);
        }
        return decompressed;
    }

    /** Page i from {@code in[i]} ({@code inBytes[i]}) into {@code out[i]} ({@code outBytes[i]} expected); null per page or its failure. */
    public static String[] decompress(DecodeKernels memory, CompressionCodecName codec, long[] in, long[] inBytes, long[] out, long[] outBytes)
    {
        String[] failures = new String[in.length];
        CompressionCodecFactory codecs = HadoopCodecs.newFactory(0);
        try {
            for (int i = 0; i < in.length; i++) {
                byte[] compressed = new byte[Math.toIntExact(inBytes[i])];
                memory.download(in[i], compressed, 0, compressed.length);
                try {
                    byte[] decompressed = decompress(codecs, codec, compressed, Math.toIntExact(outBytes[i]));
                    memory.upload(decompressed, 0, decompressed.length, out[i]);
                }
                catch (IOException | RuntimeException e) {
                    failures[i] = codec + " failed: " + e;
                }
            }
        }
        finally {
            codecs.release();
        }
        return failures;
    }
}
