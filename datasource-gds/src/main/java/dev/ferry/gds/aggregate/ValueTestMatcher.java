package dev.ferry.gds.aggregate;

import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.VarCharVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.array.ByteArrayMethods;
import org.apache.spark.unsafe.types.UTF8String;

import java.util.List;

/**
 * Marks the rows of a batch where an {@link AggregateInput.ValueTest} is true, one column at a time:
 * strings by their bytes (length first, then bytes, straight from an Arrow vector's buffers, no
 * UTF8String per row), the other types as the longs {@link VectorValues#readLongs} reads.
 */
abstract class ValueTestMatcher
{
    private final boolean negated;

    private ValueTestMatcher(boolean negated)
    {
        this.negated = negated;
    }

    static ValueTestMatcher of(AggregateInput.ValueTest test)
    {
        DataType type = test.field().dataType();
        if (type instanceof StringType) {
            return new Strings(test.literals(), test.negated());
        }
        return new Longs(test.literals(), type, test.negated());
    }

    /** Sets {@code matches[row]} for rows {@code [0, rows)}: the column is not null and (unless negated) equals a literal. */
    abstract void match(ColumnVector vector, int rows, boolean[] matches);

    /** The answer for a non-null row that {@code equal}s a literal or not. */
    final boolean answer(boolean equal)
    {
        return equal != negated;
    }

    private static final class Longs
            extends ValueTestMatcher
    {
        private final long[] literals;
        private final DataType type;
        private long[] values = new long[0];
        private boolean[] nulls = new boolean[0];

        Longs(List<Object> literals, DataType type, boolean negated)
        {
            super(negated);
            this.type = type;
            this.literals = new long[literals.size()];
            for (int index = 0; index < literals.size(); index++) {
                this.literals[index] = asLong(literals.get(index));
            }
        }

        /** The literal as {@link VectorValues#readLongs} reads the column: booleans 0/1, decimals unscaled (same scale, checked when planned). */
        private static long asLong(Object literal)
        {
            if (literal instanceof Boolean value) {
                return value ? 1 : 0;
            }
            if (literal instanceof Decimal decimal) {
                return decimal.toUnscaledLong();
            }
            if (literal instanceof Number number) {
                return number.longValue();
            }
            throw new IllegalArgumentException("Not a long-backed literal: " + literal);
        }

        @Override
        void match(ColumnVector vector, int rows, boolean[] matches)
        {
            if (values.length < rows) {
                values = new long[rows];
                nulls = new boolean[rows];
            }
            boolean hasNulls = VectorValues.readLongs(vector, type, rows, values, nulls);
            if (literals.length == 1) {
                long literal = literals[0];
                for (int row = 0; row < rows; row++) {
                    matches[row] = answer(values[row] == literal);
                }
            }
            else {
                for (int row = 0; row < rows; row++) {
                    matches[row] = answer(contains(values[row]));
                }
            }
            if (hasNulls) {
                for (int row = 0; row < rows; row++) {
                    matches[row] &= !nulls[row];
                }
            }
        }

        private boolean contains(long value)
        {
            for (long literal : literals) {
                if (literal == value) {
                    return true;
                }
            }
            return false;
        }
    }

    private static final class Strings
            extends ValueTestMatcher
    {
        private final UTF8String[] literals;
        private final byte[][] bytes;

        Strings(List<Object> literals, boolean negated)
        {
            super(negated);
            this.literals = literals.toArray(new UTF8String[0]);
            this.bytes = new byte[literals.size()][];
            for (int index = 0; index < literals.size(); index++) {
                bytes[index] = this.literals[index].getBytes();
            }
        }

        @Override
        void match(ColumnVector vector, int rows, boolean[] matches)
        {
            if (vector instanceof ArrowColumnVector arrow && arrow.getValueVector() instanceof VarCharVector strings && strings.getValueCount() >= rows) {
                matchArrow(strings, rows, matches);
            }
            else {
                // Other vectors (a partition column's constant, Spark's own): the same byte equality through UTF8String.
                for (int row = 0; row < rows; row++) {
                    matches[row] = !vector.isNullAt(row) && answer(containsString(vector.getUTF8String(row)));
                }
            }
        }

        private void matchArrow(VarCharVector strings, int rows, boolean[] matches)
        {
            long offsets = strings.getOffsetBufferAddress();
            long data = strings.getDataBufferAddress();
            boolean hasNulls = strings.getNullCount() > 0;
            int start = MemoryUtil.getInt(offsets);
            for (int row = 0; row < rows; row++) {
                int end = MemoryUtil.getInt(offsets + (row + 1L) * VarCharVector.OFFSET_WIDTH);
                boolean equal = containsBytes(data + start, end - start);
                matches[row] = answer(equal) && !(hasNulls && strings.isNull(row));
                start = end;
            }
        }

        private boolean containsBytes(long address, int length)
        {
            for (byte[] literal : bytes) {
                if (literal.length == length && ByteArrayMethods.arrayEquals(null, address, literal, Platform.BYTE_ARRAY_OFFSET, length)) {
                    return true;
                }
            }
            return false;
        }

        private boolean containsString(UTF8String value)
        {
            for (UTF8String literal : literals) {
                if (literal.equals(value)) {
                    return true;
                }
            }
            return false;
        }
    }
}
