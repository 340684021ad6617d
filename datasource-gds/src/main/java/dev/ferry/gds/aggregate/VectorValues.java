package dev.ferry.gds.aggregate;

import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.DecimalVector;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;

/**
 * Copies a batch's column into primitive arrays in one tight loop per type, so the accumulators
 * loop over plain arrays instead of dispatching on the type per row.
 */
final class VectorValues
{
    private VectorValues() {}

    /** Whether {@link #readLongs} reads {@code type}: integral, boolean, date, timestamp and DECIMAL up to 18 digits (unscaled). */
    static boolean longBacked(DataType type)
    {
        return AggregatePushdown.integral(type) || type instanceof BooleanType || type instanceof DateType || type instanceof TimestampType
                || type instanceof TimestampNTZType || (type instanceof DecimalType decimal && decimal.precision() <= Decimal.MAX_LONG_DIGITS());
    }

    /**
     * Reads {@code rows} values as longs (false/true as 0/1, decimals unscaled); where the column
     * has nulls, fills {@code nulls} too and returns true (values of null rows are unspecified).
     */
    static boolean readLongs(ColumnVector vector, DataType type, int rows, long[] values, boolean[] nulls)
    {
        if (type instanceof IntegerType || type instanceof DateType) {
            for (int row = 0; row < rows; row++) {
                values[row] = vector.getInt(row);
            }
        }
        else if (type instanceof LongType || type instanceof TimestampType || type instanceof TimestampNTZType) {
            for (int row = 0; row < rows; row++) {
                values[row] = vector.getLong(row);
            }
        }
        else if (type instanceof ShortType) {
            for (int row = 0; row < rows; row++) {
                values[row] = vector.getShort(row);
            }
        }
        else if (type instanceof ByteType) {
            for (int row = 0; row < rows; row++) {
                values[row] = vector.getByte(row);
            }
        }
        else if (type instanceof BooleanType) {
            for (int row = 0; row < rows; row++) {
                values[row] = vector.isNullAt(row) || !vector.getBoolean(row) ? 0 : 1;
            }
        }
        else if (type instanceof DecimalType decimal) {
            readUnscaled(vector, decimal, rows, values);
        }
        else {
            throw new IllegalArgumentException("Not read as longs: " + type);
        }
        return readNulls(vector, rows, nulls);
    }

    /**
     * The plain sum of {@code rows} non-null values of a column of at most 32-bit integers or of
     * DECIMAL up to 15 digits (unscaled), read in one pass: it cannot overflow below 2^31 rows
     * (9,000 rows for the decimals, more than a default batch).
     */
    static long sumNarrow(ColumnVector vector, DataType type, int rows)
    {
        long sum = 0;
        if (type instanceof IntegerType) {
            for (int row = 0; row < rows; row++) {
                sum += vector.getInt(row);
            }
        }
        else if (type instanceof ShortType) {
            for (int row = 0; row < rows; row++) {
                sum += vector.getShort(row);
            }
        }
        else if (type instanceof ByteType) {
            for (int row = 0; row < rows; row++) {
                sum += vector.getByte(row);
            }
        }
        else if (type instanceof DecimalType decimal && decimal.precision() <= 15 && rows <= 9000) {
            if (vector instanceof ArrowColumnVector arrow && arrow.getValueVector() instanceof DecimalVector decimals && decimals.getValueCount() >= rows) {
                long address = decimals.getDataBufferAddress();
                for (int row = 0; row < rows; row++) {
                    sum += MemoryUtil.getLong(address + (long) row * DecimalVector.TYPE_WIDTH);
                }
            }
            else {
                for (int row = 0; row < rows; row++) {
                    sum += vector.getDecimal(row, decimal.precision(), decimal.scale()).toUnscaledLong();
                }
            }
        }
        else {
            throw new IllegalArgumentException("Not summed as narrow values: " + type);
        }
        return sum;
    }

    /** The sum of {@code rows} non-null FLOAT or DOUBLE values in row order, from {@code start}. */
    static double sumDoubles(ColumnVector vector, DataType type, int rows, double start)
    {
        double sum = start;
        if (type instanceof DoubleType) {
            for (int row = 0; row < rows; row++) {
                sum += vector.getDouble(row);
            }
        }
        else {
            for (int row = 0; row < rows; row++) {
                sum += vector.getFloat(row);
            }
        }
        return sum;
    }

    static boolean readDoubles(ColumnVector vector, DataType type, int rows, double[] values, boolean[] nulls)
    {
        if (type instanceof DoubleType) {
            for (int row = 0; row < rows; row++) {
                values[row] = vector.getDouble(row);
            }
        }
        else if (type instanceof FloatType) {
            // Widening is exact, and keeps NaN, infinities and -0.0, as Spark's cast to double does.
            for (int row = 0; row < rows; row++) {
                values[row] = vector.getFloat(row);
            }
        }
        else {
            throw new IllegalArgumentException("Not read as doubles: " + type);
        }
        return readNulls(vector, rows, nulls);
    }

    private static void readUnscaled(ColumnVector vector, DecimalType decimal, int rows, long[] values)
    {
        if (vector instanceof ArrowColumnVector arrow && arrow.getValueVector() instanceof DecimalVector decimals && decimals.getValueCount() >= rows) {
            // Arrow keeps 16-byte little-endian two's complement; a value of at most 18 digits is its low 8 bytes.
            long address = decimals.getDataBufferAddress();
            for (int row = 0; row < rows; row++) {
                values[row] = MemoryUtil.getLong(address + (long) row * DecimalVector.TYPE_WIDTH);
            }
            return;
        }
        for (int row = 0; row < rows; row++) {
            values[row] = vector.isNullAt(row) ? 0 : vector.getDecimal(row, decimal.precision(), decimal.scale()).toUnscaledLong();
        }
    }

    private static boolean readNulls(ColumnVector vector, int rows, boolean[] nulls)
    {
        if (!vector.hasNull()) {
            return false;
        }
        for (int row = 0; row < rows; row++) {
            nulls[row] = vector.isNullAt(row);
        }
        return true;
    }

    /** The long of {@link #readLongs} as Spark's value of {@code type}. */
    static Object fromLong(long value, DataType type)
    {
        if (type instanceof IntegerType || type instanceof DateType) {
            return (int) value;
        }
        if (type instanceof ShortType) {
            return (short) value;
        }
        if (type instanceof ByteType) {
            return (byte) value;
        }
        if (type instanceof BooleanType) {
            return value != 0;
        }
        if (type instanceof DecimalType decimal) {
            return Decimal.createUnsafe(value, decimal.precision(), decimal.scale());
        }
        return value;
    }

    /**
     * Row {@code row}'s value as Spark holds it, or null; strings are copied (the batch's memory is
     * reused) and floating values normalized as Spark normalizes group keys (NaN one value, -0.0 as 0.0).
     */
    static Object keyAt(ColumnVector vector, DataType type, int row)
    {
        if (vector.isNullAt(row)) {
            return null;
        }
        if (type instanceof StringType) {
            return vector.getUTF8String(row).copy();
        }
        if (type instanceof DecimalType decimal) {
            return vector.getDecimal(row, decimal.precision(), decimal.scale());
        }
        if (type instanceof DoubleType) {
            double value = vector.getDouble(row);
            return Double.isNaN(value) ? Double.NaN : value == 0.0d ? 0.0d : value;
        }
        if (type instanceof FloatType) {
            float value = vector.getFloat(row);
            return Float.isNaN(value) ? Float.NaN : value == 0.0f ? 0.0f : value;
        }
        if (type instanceof BooleanType) {
            return vector.getBoolean(row);
        }
        if (type instanceof ByteType) {
            return vector.getByte(row);
        }
        if (type instanceof ShortType) {
            return vector.getShort(row);
        }
        if (type instanceof IntegerType || type instanceof DateType) {
            return vector.getInt(row);
        }
        if (type instanceof LongType || type instanceof TimestampType || type instanceof TimestampNTZType) {
            return vector.getLong(row);
        }
        throw new IllegalArgumentException("Not a group key type: " + type);
    }
}
