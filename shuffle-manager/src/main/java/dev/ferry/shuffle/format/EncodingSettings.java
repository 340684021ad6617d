package dev.ferry.shuffle.format;

import java.io.Serializable;

import dev.ferry.shuffle.ShuffleConfigKeys;

import static java.util.Objects.requireNonNull;

/** How a map task encodes its blocks; fixed per exchange on the driver and shipped with the shuffle dependency. */
public final class EncodingSettings
        implements Serializable
{
    private static final long serialVersionUID = 1L;

    private final CompressionKind compression;
    private final int zstdLevel;
    private final long minCompressBytes;
    private final long batchTargetBytes;
    private final long maxBufferedBytes;
    private final ChecksumAlgorithm checksum;
    private final long scatterBufferBytes;

    /** With the default scatter buffer ({@code spark.ferry.shuffle.write.scatterBufferBytes}'s default). */
    public EncodingSettings(CompressionKind compression, int zstdLevel, long minCompressBytes, long batchTargetBytes, long maxBufferedBytes, ChecksumAlgorithm checksum)
    {
        this(compression, zstdLevel, minCompressBytes, batchTargetBytes, maxBufferedBytes, checksum, ShuffleConfigKeys.SCATTER_BUFFER_BYTES.defaultValue());
    }

    /** {@code scatterBufferBytes} 0 appends every row straight to its partition's batch. */
    public EncodingSettings(CompressionKind compression, int zstdLevel, long minCompressBytes, long batchTargetBytes, long maxBufferedBytes, ChecksumAlgorithm checksum,
            long scatterBufferBytes)
    {
        this.compression = requireNonNull(compression, "compression is null");
        this.zstdLevel = zstdLevel;
        this.minCompressBytes = minCompressBytes;
        if (batchTargetBytes <= 0 || maxBufferedBytes <= 0) {
            throw new IllegalArgumentException("batch target and buffer limit must be positive: " + batchTargetBytes + ", " + maxBufferedBytes);
        }
        this.batchTargetBytes = batchTargetBytes;
        this.maxBufferedBytes = maxBufferedBytes;
        this.checksum = requireNonNull(checksum, "checksum is null");
        if (scatterBufferBytes < 0) {
            throw new IllegalArgumentException("scatter buffer bytes must not be negative: " + scatterBufferBytes);
        }
        this.scatterBufferBytes = scatterBufferBytes;
    }

    public CompressionKind compression()
    {
        return compression;
    }

    /** The same settings with {@code resolved} as the codec (a map task's choice for {@link CompressionKind#AUTO}). */
    public EncodingSettings withCompression(CompressionKind resolved)
    {
        return resolved == compression ? this : new EncodingSettings(resolved, zstdLevel, minCompressBytes, batchTargetBytes, maxBufferedBytes, checksum, scatterBufferBytes);
    }

    public int zstdLevel()
    {
        return zstdLevel;
    }

    public long minCompressBytes()
    {
        return minCompressBytes;
    }

    public long batchTargetBytes()
    {
        return batchTargetBytes;
    }

    public long maxBufferedBytes()
    {
        return maxBufferedBytes;
    }

    public ChecksumAlgorithm checksum()
    {
        return checksum;
    }

    /**
     * Heap a map task may copy rows into before scattering them to their partitions' batches
     * ({@link MapOutputEncoder}'s stage): the setting, at most a sixteenth of {@link #maxBufferedBytes}
     * (so a small Arrow budget keeps a small stage, and batches are still flushed while rows
     * arrive); 0 for none.
     */
    public long scatterBufferBytes()
    {
        return Math.min(scatterBufferBytes, maxBufferedBytes / 16);
    }

    @Override
    public String toString()
    {
        return "compression=" + compression.name().toLowerCase(java.util.Locale.ROOT) + ", batchTarget=" + batchTargetBytes + ", checksum=" + checksum + ", scatterBuffer=" + scatterBufferBytes();
    }
}
