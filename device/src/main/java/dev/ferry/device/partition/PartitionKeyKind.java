package dev.ferry.device.partition;

/**
 * How a key column's Arrow values are hashed, as Spark's {@code Murmur3Hash} hashes the Spark type
 * they hold; {@link #code()} is the {@code FERRY_KEY_*} define of {@code spark_partition.cu}.
 */
public enum PartitionKeyKind
{
    /** 4-byte ints (int, date): hashInt. */
    INT32(0, 4),
    /** 8-byte longs (bigint, timestamp): hashLong. */
    INT64(1, 8),
    /** 4-byte floats: hashInt of floatToIntBits, -0.0 as 0.0. */
    FLOAT32(2, 4),
    /** 8-byte doubles: hashLong of doubleToLongBits, -0.0 as 0.0. */
    FLOAT64(3, 8),
    /** Arrow bits: hashInt of 1 or 0. */
    BOOLEAN(4, 0),
    /** 16-byte decimals of precision <= 18: hashLong of the unscaled long. */
    DECIMAL_LONG(5, 16),
    /** 16-byte decimals of precision > 18: hashUnsafeBytes of BigInteger.toByteArray of the unscaled value. */
    DECIMAL_BYTES(6, 16),
    /** Arrow int32 offsets and bytes (string, binary): hashUnsafeBytes. */
    BYTES(-1, 0);

    private final int code;
    private final int width;

    PartitionKeyKind(int code, int width)
    {
        this.code = code;
        this.width = width;
    }

    /** The kernel's kind argument; -1 for {@link #BYTES}, which has a kernel of its own. */
    public int code()
    {
        return code;
    }

    /** Bytes per value in the Arrow values buffer; 0 for bits and variable width. */
    public int width()
    {
        return width;
    }
}
