package dev.ferry.gds.read;

import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.spark.sql.catalyst.util.DateTimeUtils;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;

import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.Optional;

/**
 * How {@link RowFilter} reads one batch column and orders its values as Spark SQL does: integers and
 * dates as longs, floats and doubles with Spark's NaN and signed-zero rules, strings as unsigned
 * UTF-8 bytes (binary collation only), booleans false before true, decimals by their unscaled
 * values at the column's scale ({@link DecimalValues}). Literals are converted once to
 * the same representation; a literal of another type is refused (the filter is then not evaluated).
 */
abstract class ColumnValues
{
    final int column;
    // A column that decoded to an unexpected vector is logged once, not per batch.
    boolean mismatchLogged;
    // Set where Spark was told the filter is exact: a column it cannot read then fails the read (FilterNode.usable).
    boolean exactRequired;

    ColumnValues(int column)
    {
        this.column = column;
    }

    /** The reader for column {@code column} of Spark type {@code type}, or empty for a type not evaluated here. */
    static Optional<ColumnValues> of(int column, DataType type)
    {
        if (type instanceof IntegerType) {
            return Optional.of(new Integral(column, 4, IntVector.class, false));
        }
        if (type instanceof DateType) {
            return Optional.of(new Integral(column, 4, DateDayVector.class, true));
        }
        if (type instanceof LongType) {
            return Optional.of(new Integral(column, 8, BigIntVector.class, false));
        }
        if (type instanceof ShortType) {
            return Optional.of(new Integral(column, 2, SmallIntVector.class, false));
        }
        if (type instanceof ByteType) {
            return Optional.of(new Integral(column, 1, TinyIntVector.class, false));
        }
        if (type instanceof DoubleType) {
            return Optional.of(new Floating(column, 8, Float8Vector.class));
        }
        if (type instanceof FloatType) {
            return Optional.of(new Floating(column, 4, Float4Vector.class));
        }
        if (type instanceof StringType && ((StringType) type).isUTF8BinaryCollation()) {
            return Optional.of(new Utf8(column));
        }
        if (type instanceof BooleanType) {
            return Optional.of(new Booleans(column));
        }
        if (type instanceof DecimalType) {
            return Optional.of(new DecimalValues(column, (DecimalType) type));
        }
        return Optional.empty();
    }

    /** Whether {@code vector} is the vector this column's type decodes to. */
    abstract boolean accepts(FieldVector vector);

    /** {@code literal} in this column's representation, or empty when it is of another type. */
    abstract Optional<Object> literal(Object literal);

    /** The sign of compare(value of {@code row}, {@code literal}); the row is not null. */
    abstract int compare(FieldVector vector, int row, Object literal);

    /**
     * Writes each non-null row's outcome of {@code op} against {@code literal} (TRUE or FALSE) into
     * {@code out}, and {@code nullOutcome} for null rows.
     */
    void compareRows(FieldVector vector, int rows, Object literal, Comparison op, byte nullOutcome, byte[] out)
    {
        for (int row = 0; row < rows; row++) {
            out[row] = isNull(vector, row) ? nullOutcome : op.outcome(compare(vector, row, literal));
        }
    }

    static boolean isNull(FieldVector vector, int row)
    {
        return isNull(vector.getValidityBufferAddress(), row);
    }

    /** Whether row {@code row}'s bit in the validity bitmap at {@code validity} is clear. */
    static boolean isNull(long validity, int row)
    {
        return ((MemoryUtil.getByte(validity + (row >>> 3)) >>> (row & 7)) & 1) == 0;
    }

    private static final class Integral
            extends ColumnValues
    {
        private final int width;
        private final Class<? extends FieldVector> vectorClass;
        private final boolean date;

        Integral(int column, int width, Class<? extends FieldVector> vectorClass, boolean date)
        {
            super(column);
            this.width = width;
            this.vectorClass = vectorClass;
            this.date = date;
        }

        @Override
        boolean accepts(FieldVector vector)
        {
            return vectorClass.isInstance(vector);
        }

        @Override
        Optional<Object> literal(Object literal)
        {
            if (date) {
                if (literal instanceof LocalDate) {
                    return Optional.of(((LocalDate) literal).toEpochDay());
                }
                if (literal instanceof java.sql.Date) {
                    // The inverse of how Spark made the filter's java.sql.Date from its day number.
                    return Optional.of((long) DateTimeUtils.fromJavaDate((java.sql.Date) literal));
                }
                return Optional.empty();
            }
            if (literal instanceof Long || literal instanceof Integer || literal instanceof Short || literal instanceof Byte) {
                return Optional.of(((Number) literal).longValue());
            }
            return Optional.empty();
        }

        @Override
        int compare(FieldVector vector, int row, Object literal)
        {
            return Long.compare(value(vector.getDataBufferAddress(), row), (Long) literal);
        }

        // The hot case (a range filter on an integer column) without a call per row.
        @Override
        void compareRows(FieldVector vector, int rows, Object literal, Comparison op, byte nullOutcome, byte[] out)
        {
            long bound = (Long) literal;
            long data = vector.getDataBufferAddress();
            long validity = vector.getValidityBufferAddress();
            for (int row = 0; row < rows; row++) {
                out[row] = isNull(validity, row) ? nullOutcome : op.outcome(Long.compare(value(data, row), bound));
            }
        }

        long value(long data, int row)
        {
            switch (width) {
                case 4:
                    return MemoryUtil.getInt(data + (long) row * 4);
                case 8:
                    return MemoryUtil.getLong(data + (long) row * 8);
                case 2:
                    return MemoryUtil.getShort(data + (long) row * 2);
                default:
                    return MemoryUtil.getByte(data + row);
            }
        }
    }

    private static final class Floating
            extends ColumnValues
    {
        private final int width;
        private final Class<? extends FieldVector> vectorClass;

        Floating(int column, int width, Class<? extends FieldVector> vectorClass)
        {
            super(column);
            this.width = width;
            this.vectorClass = vectorClass;
        }

        @Override
        boolean accepts(FieldVector vector)
        {
            return vectorClass.isInstance(vector);
        }

        @Override
        Optional<Object> literal(Object literal)
        {
            if (literal instanceof Double || literal instanceof Float) {
                return Optional.of(((Number) literal).doubleValue());
            }
            return Optional.empty();
        }

        @Override
        int compare(FieldVector vector, int row, Object literal)
        {
            long data = vector.getDataBufferAddress();
            double value = width == 8 ? Double.longBitsToDouble(MemoryUtil.getLong(data + (long) row * 8)) : Float.intBitsToFloat(MemoryUtil.getInt(data + (long) row * 4));
            return compareDoubles(value, (Double) literal);
        }

        // Spark's SQLOrderingUtil.compareDoubles: -0.0 equals 0.0, NaN equals NaN and is above everything.
        private static int compareDoubles(double left, double right)
        {
            return left == right ? 0 : Double.compare(left, right);
        }
    }

    private static final class Utf8
            extends ColumnValues
    {
        Utf8(int column)
        {
            super(column);
        }

        @Override
        boolean accepts(FieldVector vector)
        {
            return vector instanceof VarCharVector;
        }

        @Override
        Optional<Object> literal(Object literal)
        {
            return literal instanceof String ? Optional.of(((String) literal).getBytes(StandardCharsets.UTF_8)) : Optional.empty();
        }

        @Override
        int compare(FieldVector vector, int row, Object literal)
        {
            byte[] bytes = (byte[]) literal;
            long offsets = vector.getOffsetBufferAddress();
            int start = MemoryUtil.getInt(offsets + (long) row * 4);
            int length = MemoryUtil.getInt(offsets + (long) (row + 1) * 4) - start;
            long data = vector.getDataBufferAddress() + start;
            int common = Math.min(length, bytes.length);
            for (int index = 0; index < common; index++) {
                int difference = (MemoryUtil.getByte(data + index) & 0xFF) - (bytes[index] & 0xFF);
                if (difference != 0) {
                    return difference;
                }
            }
            return Integer.compare(length, bytes.length);
        }

        /** Whether the row's bytes start with {@code prefix}; the row is not null. */
        boolean startsWith(FieldVector vector, int row, byte[] prefix)
        {
            long offsets = vector.getOffsetBufferAddress();
            int start = MemoryUtil.getInt(offsets + (long) row * 4);
            int length = MemoryUtil.getInt(offsets + (long) (row + 1) * 4) - start;
            if (length < prefix.length) {
                return false;
            }
            long data = vector.getDataBufferAddress() + start;
            for (int index = 0; index < prefix.length; index++) {
                if (MemoryUtil.getByte(data + index) != prefix[index]) {
                    return false;
                }
            }
            return true;
        }
    }

    private static final class Booleans
            extends ColumnValues
    {
        Booleans(int column)
        {
            super(column);
        }

        @Override
        boolean accepts(FieldVector vector)
        {
            return vector instanceof BitVector;
        }

        @Override
        Optional<Object> literal(Object literal)
        {
            return literal instanceof Boolean ? Optional.of(literal) : Optional.empty();
        }

        @Override
        int compare(FieldVector vector, int row, Object literal)
        {
            boolean value = ((MemoryUtil.getByte(vector.getDataBufferAddress() + (row >>> 3)) >>> (row & 7)) & 1) != 0;
            return Boolean.compare(value, (Boolean) literal);
        }
    }

    /** Whether {@code values} reads strings, for prefix tests. */
    static boolean isUtf8(ColumnValues values)
    {
        return values instanceof Utf8;
    }

    static boolean startsWith(ColumnValues values, FieldVector vector, int row, byte[] prefix)
    {
        return ((Utf8) values).startsWith(vector, row, prefix);
    }
}
