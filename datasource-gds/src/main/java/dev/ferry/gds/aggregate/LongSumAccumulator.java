package dev.ferry.gds.aggregate;

import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnVector;

import java.util.Arrays;

/** SUM over integral columns into a long, spilling a partial before it would overflow. */
final class LongSumAccumulator
        extends Accumulator
{
    private final DataType type;
    // Values of at most 32 bits: a batch's plain sum (at most 2^31 rows of them) cannot overflow a long.
    private final boolean narrow;
    private long[] sums = new long[0];
    private boolean[] seen = new boolean[0];
    private long[] values = new long[0];
    private boolean[] nulls = new boolean[0];

    LongSumAccumulator(int index, Spill spill, DataType type)
    {
        super(index, spill);
        this.type = type;
        this.narrow = !(type instanceof org.apache.spark.sql.types.LongType);
    }

    @Override
    void grow(int groups)
    {
        if (sums.length < groups) {
            int capacity = capacity(sums.length, groups);
            sums = Arrays.copyOf(sums, capacity);
            seen = Arrays.copyOf(seen, capacity);
        }
    }

    @Override
    void add(ColumnVector input, int rows, int[] groups)
    {
        if (groups == null && narrow && !input.hasNull()) {
            if (rows > 0) {
                addPartial(VectorValues.sumNarrow(input, type, rows));
            }
            return;
        }
        if (groups == null && !narrow && !input.hasNull()) {
            // BIGINT without nulls: checked straight off the vector, with the partial in a local.
            long sum = sums[0];
            for (int row = 0; row < rows; row++) {
                sum = addChecked(0, sum, input.getLong(row));
            }
            sums[0] = sum;
            seen[0] |= rows > 0;
            return;
        }
        if (values.length < rows) {
            values = new long[rows];
            nulls = new boolean[rows];
        }
        boolean hasNulls = VectorValues.readLongs(input, type, rows, values, nulls);
        if (groups == null && narrow) {
            // Narrow values: the batch's sum in a plain loop, then one overflow check.
            sumPresent(values, nulls, rows, hasNulls).ifPresent(this::addPartial);
            return;
        }
        if (groups == null) {
            // Longs: checked row by row, with the partial in a local.
            long sum = sums[0];
            boolean any = false;
            for (int row = 0; row < rows; row++) {
                if (hasNulls && nulls[row]) {
                    continue;
                }
                sum = addChecked(0, sum, values[row]);
                any = true;
            }
            sums[0] = sum;
            seen[0] |= any;
            return;
        }
        for (int row = 0; row < rows; row++) {
            if (hasNulls && nulls[row]) {
                continue;
            }
            int group = groups[row];
            sums[group] = addChecked(group, sums[group], values[row]);
            seen[group] = true;
        }
    }

    /**
     * {@code sum + value} for {@code group}; where the addition overflows, the partial so far is
     * spilled as an early partial (Spark's final SUM then sees the overflow) and the sum restarts at
     * {@code value}.
     */
    private long addChecked(int group, long sum, long value)
    {
        long next = sum + value;
        if (((sum ^ next) & (value ^ next)) < 0) {
            spill.spill(group, index, sum);
            return value;
        }
        return next;
    }

    // Adds a batch's sum to the group-less partial, spilling the partial first where the two overflow.
    private void addPartial(long batch)
    {
        sums[0] = addChecked(0, sums[0], batch);
        seen[0] = true;
    }

    @Override
    Object result(int group)
    {
        return seen[group] ? sums[group] : null;
    }
}
