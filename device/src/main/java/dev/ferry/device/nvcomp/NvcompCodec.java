package dev.ferry.device.nvcomp;

import java.util.Locale;
import java.util.Optional;

/**
 * The Parquet codecs nvCOMP's batched API decompresses: SNAPPY (raw snappy), ZSTD (frames),
 * LZ4_RAW (raw LZ4 blocks, nvCOMP's LZ4), GZIP (nvCOMP's gzip) and raw DEFLATE. Parquet's Hadoop-framed
 * LZ4 and BROTLI have no nvCOMP decompressor: they stay on the CPU, per chunk, with the reason.
 */
public enum NvcompCodec
{
    SNAPPY,
    ZSTD,
    LZ4_RAW,
    GZIP,
    DEFLATE;

    /** The nvCOMP codec for a Parquet codec name ({@code CompressionCodecName.name()}), if nvCOMP has one. */
    public static Optional<NvcompCodec> forParquet(String parquetCodec)
    {
        return switch (parquetCodec.toUpperCase(Locale.ROOT)) {
            case "SNAPPY" -> Optional.of(SNAPPY);
            case "ZSTD" -> Optional.of(ZSTD);
            case "LZ4_RAW" -> Optional.of(LZ4_RAW);
            case "GZIP" -> Optional.of(GZIP);
            default -> Optional.empty();
        };
    }
}
