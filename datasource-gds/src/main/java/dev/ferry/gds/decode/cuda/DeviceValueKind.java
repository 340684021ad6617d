package dev.ferry.gds.decode.cuda;

/**
 * How the device decoder turns a flat column's Parquet values into its Arrow buffer: the physical
 * width it reads, the Arrow width it writes, and the conversion kernel between them.
 */
public enum DeviceValueKind
{
    /** INT32, FLOAT, DATE (no rebase): 4 bytes copied. */
    FIXED4(4, 4),
    /** INT64, DOUBLE, TIMESTAMP_MICROS: 8 bytes copied. */
    FIXED8(8, 8),
    /** INT32 (INT(8)) to ByteType's one byte (ferry_int32_narrow). */
    INT8(4, 1),
    /** INT32 (INT(16)) to ShortType's two bytes (ferry_int32_narrow). */
    INT16(4, 2),
    /** INT96 to 8-byte microseconds (ferry_int96_to_micros). */
    INT96_MICROS(12, 8),
    /** INT32 unscaled decimals to decimal128 (ferry_decimal_to_128). */
    DECIMAL_INT32(4, 16),
    /** INT64 unscaled decimals to decimal128 (ferry_decimal_to_128). */
    DECIMAL_INT64(8, 16),
    /**
     * FIXED_LEN_BYTE_ARRAY unscaled big-endian decimals (1 to 16 bytes, the column's type length:
     * {@link #parquetWidth(int)}) to decimal128 (ferry_decimal_to_128).
     */
    DECIMAL_FIXED_LEN(0, 16),
    /** INT64 TIMESTAMP(MILLIS) read as stored to microseconds (ferry_timestamp_to_micros, times 1000; an overflow is a value-range error). */
    TIMESTAMP_MILLIS(8, 8),
    /** BYTE_ARRAY to Arrow offsets and data. */
    STRINGS(0, 0),
    /** PLAIN BOOLEAN bits to an Arrow bit vector (ferry_copy_bits per page, ferry_spaced_booleans per batch). */
    BOOLEANS(0, 0);

    private final int parquetWidth;
    private final int arrowWidth;

    DeviceValueKind(int parquetWidth, int arrowWidth)
    {
        this.parquetWidth = parquetWidth;
        this.arrowWidth = arrowWidth;
    }

    public int parquetWidth()
    {
        return parquetWidth;
    }

    /** The Parquet width of this kind's values in a column whose FIXED_LEN_BYTE_ARRAY type length is {@code typeLength} (used only by {@link #DECIMAL_FIXED_LEN}). */
    public int parquetWidth(int typeLength)
    {
        return this == DECIMAL_FIXED_LEN ? typeLength : parquetWidth;
    }

    public int arrowWidth()
    {
        return arrowWidth;
    }
}
