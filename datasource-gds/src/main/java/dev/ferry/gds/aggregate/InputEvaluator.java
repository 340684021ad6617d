package dev.ferry.gds.aggregate;

import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

import java.util.Arrays;

/**
 * Gives an aggregate its input column for a batch: the batch's own column, or an expression
 * evaluated into a reused on-heap vector.
 */
abstract class InputEvaluator
{
    abstract ColumnVector evaluate(ColumnarBatch batch);

    static InputEvaluator of(AggregateInput input, StructType inputSchema)
    {
        if (input instanceof AggregateInput.Column column) {
            int ordinal = inputSchema.fieldIndex(column.field().name());
            return new InputEvaluator()
            {
                @Override
                ColumnVector evaluate(ColumnarBatch batch)
                {
                    return batch.column(ordinal);
                }
            };
        }
        if (input instanceof AggregateInput.CharLength length) {
            return new CharLengthEvaluator(inputSchema.fieldIndex(length.field().name()));
        }
        if (input instanceof AggregateInput.Remainder remainder) {
            return new RemainderEvaluator(remainder, inputSchema.fieldIndex(remainder.field().name()));
        }
        if (input instanceof AggregateInput.CaseWhen caseWhen) {
            return new CaseWhenEvaluator(caseWhen, inputSchema);
        }
        throw new IllegalArgumentException("Unknown input " + input);
    }

    /** Evaluates into one on-heap vector, reused from batch to batch. */
    private abstract static class Computed
            extends InputEvaluator
    {
        private OnHeapColumnVector out;
        private int capacity;

        /** The vector of {@code type} for at least {@code rows} rows, with no nulls set. */
        OnHeapColumnVector output(int rows, DataType type)
        {
            if (out == null || capacity < rows) {
                if (out != null) {
                    out.close();
                }
                capacity = Math.max(rows, 4096);
                out = new OnHeapColumnVector(capacity, type);
            }
            else {
                out.reset();
            }
            return out;
        }
    }

    private static final class CharLengthEvaluator
            extends Computed
    {
        private final int ordinal;

        CharLengthEvaluator(int ordinal)
        {
            this.ordinal = ordinal;
        }

        @Override
        ColumnVector evaluate(ColumnarBatch batch)
        {
            int rows = batch.numRows();
            ColumnVector strings = batch.column(ordinal);
            OnHeapColumnVector out = output(rows, DataTypes.IntegerType);
            boolean hasNulls = strings.hasNull();
            for (int row = 0; row < rows; row++) {
                if (hasNulls && strings.isNullAt(row)) {
                    out.putNull(row);
                }
                else {
                    out.putInt(row, strings.getUTF8String(row).numChars());
                }
            }
            return out;
        }
    }

    private static final class RemainderEvaluator
            extends Computed
    {
        private final DataType type;
        private final long divisor;
        private final int ordinal;

        RemainderEvaluator(AggregateInput.Remainder remainder, int ordinal)
        {
            this.type = remainder.type();
            this.divisor = remainder.divisor();
            this.ordinal = ordinal;
        }

        @Override
        ColumnVector evaluate(ColumnarBatch batch)
        {
            int rows = batch.numRows();
            ColumnVector values = batch.column(ordinal);
            OnHeapColumnVector out = output(rows, type);
            if (values.hasNull()) {
                // A null's slot is never read: some vectors refuse it.
                for (int row = 0; row < rows; row++) {
                    if (values.isNullAt(row)) {
                        out.putNull(row);
                    }
                    else {
                        put(out, row, values);
                    }
                }
                return out;
            }
            // One loop per type, so the per-row work is a load, a remainder and a store.
            if (type instanceof LongType) {
                for (int row = 0; row < rows; row++) {
                    out.putLong(row, values.getLong(row) % divisor);
                }
            }
            else if (type instanceof IntegerType) {
                int by = (int) divisor;
                for (int row = 0; row < rows; row++) {
                    out.putInt(row, values.getInt(row) % by);
                }
            }
            else {
                for (int row = 0; row < rows; row++) {
                    put(out, row, values);
                }
            }
            return out;
        }

        private void put(OnHeapColumnVector out, int row, ColumnVector values)
        {
            if (type instanceof LongType) {
                out.putLong(row, values.getLong(row) % divisor);
            }
            else if (type instanceof IntegerType) {
                out.putInt(row, (int) (values.getInt(row) % divisor));
            }
            else if (type instanceof ShortType) {
                out.putShort(row, (short) (values.getShort(row) % divisor));
            }
            else {
                out.putByte(row, (byte) (values.getByte(row) % divisor));
            }
        }
    }

    /**
     * Evaluates test by test over whole columns ({@link ValueTestMatcher}), then gives each row the
     * value of its first true test, else the ELSE value (null without one).
     */
    private static final class CaseWhenEvaluator
            extends Computed
    {
        private final AggregateInput.CaseWhen caseWhen;
        private final int[] ordinals;
        private final ValueTestMatcher[] matchers;
        private final long[] values;
        private boolean[] matches = new boolean[0];
        private int[] branches = new int[0];

        CaseWhenEvaluator(AggregateInput.CaseWhen caseWhen, StructType inputSchema)
        {
            this.caseWhen = caseWhen;
            int tests = caseWhen.tests().size();
            this.ordinals = new int[tests];
            this.matchers = new ValueTestMatcher[tests];
            this.values = new long[tests];
            for (int index = 0; index < tests; index++) {
                ordinals[index] = inputSchema.fieldIndex(caseWhen.tests().get(index).field().name());
                matchers[index] = ValueTestMatcher.of(caseWhen.tests().get(index));
                values[index] = caseWhen.values().get(index);
            }
        }

        @Override
        ColumnVector evaluate(ColumnarBatch batch)
        {
            int rows = batch.numRows();
            if (matches.length < rows) {
                matches = new boolean[rows];
                branches = new int[rows];
            }
            int elseBranch = ordinals.length;
            Arrays.fill(branches, 0, rows, elseBranch);
            // Last test first, so a row's earliest true test is the one left in branches.
            for (int index = ordinals.length - 1; index >= 0; index--) {
                matchers[index].match(batch.column(ordinals[index]), rows, matches);
                for (int row = 0; row < rows; row++) {
                    if (matches[row]) {
                        branches[row] = index;
                    }
                }
            }
            DataType type = caseWhen.type();
            OnHeapColumnVector out = output(rows, type);
            Long elseValue = caseWhen.elseValue();
            for (int row = 0; row < rows; row++) {
                int branch = branches[row];
                if (branch == elseBranch && elseValue == null) {
                    out.putNull(row);
                }
                else {
                    put(out, row, branch == elseBranch ? elseValue : values[branch], type);
                }
            }
            return out;
        }

        private static void put(OnHeapColumnVector out, int row, long value, DataType type)
        {
            if (type instanceof IntegerType) {
                out.putInt(row, (int) value);
            }
            else if (type instanceof LongType) {
                out.putLong(row, value);
            }
            else if (type instanceof ShortType) {
                out.putShort(row, (short) value);
            }
            else if (type instanceof ByteType) {
                out.putByte(row, (byte) value);
            }
            else {
                throw new IllegalArgumentException("CASE WHEN of " + type);
            }
        }
    }
}
