package dev.ferry.shuffle.format;

import java.util.Locale;
import java.util.zip.Adler32;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import java.util.zip.Checksum;

/**
 * The per-block checksum, chosen by Spark's own {@code spark.shuffle.checksum.enabled} and
 * {@code spark.shuffle.checksum.algorithm} (ADLER32, CRC32, CRC32C). The id travels in each
 * block's header, so a reader verifies with the algorithm the writer used.
 */
public enum ChecksumAlgorithm
{
    NONE(0),
    ADLER32(1),
    CRC32(2),
    CRC32C(3);

    private final int id;

    ChecksumAlgorithm(int id)
    {
        this.id = id;
    }

    public int id()
    {
        return id;
    }

    public static ChecksumAlgorithm fromId(int id)
    {
        for (ChecksumAlgorithm algorithm : values()) {
            if (algorithm.id == id) {
                return algorithm;
            }
        }
        throw new IllegalArgumentException("Unknown checksum algorithm id " + id);
    }

    /** Spark's settings: disabled means {@link #NONE}; an algorithm Ferry does not know is an error. */
    public static ChecksumAlgorithm fromSparkSettings(boolean enabled, String algorithm)
    {
        if (!enabled) {
            return NONE;
        }
        switch (algorithm.trim().toUpperCase(Locale.ROOT)) {
            case "ADLER32":
                return ADLER32;
            case "CRC32":
                return CRC32;
            case "CRC32C":
                return CRC32C;
            default:
                throw new IllegalArgumentException("spark.shuffle.checksum.algorithm must be ADLER32, CRC32 or CRC32C, got '" + algorithm + "'");
        }
    }

    Checksum newChecksum()
    {
        switch (this) {
            case NONE:
                return null;
            case ADLER32:
                return new Adler32();
            case CRC32:
                return new CRC32();
            case CRC32C:
                return new CRC32C();
        }
        throw new IllegalStateException("Unhandled algorithm " + this);
    }
}
