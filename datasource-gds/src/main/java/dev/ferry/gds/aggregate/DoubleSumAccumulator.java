package dev.ferry.gds.aggregate;

import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnVector;

import java.util.Arrays;

/**
 * SUM over FLOAT and DOUBLE columns, added in row order from 0.0 as Spark's partial SUM does (so
 * the sum of -0.0 alone is 0.0, NaN and infinities propagate the same way).
 */
final class DoubleSumAccumulator
        extends Accumulator
{
    private final DataType type;
    private double[] sums = new double[0];
    private boolean[] seen = new boolean[0];
    private double[] values = new double[0];
    private boolean[] nulls = new boolean[0];

    DoubleSumAccumulator(int index, Spill spill, DataType type)
    {
        super(index, spill);
        this.type = type;
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
        if (values.length < rows) {
            values = new double[rows];
            nulls = new boolean[rows];
        }
        if (groups == null && !input.hasNull()) {
            sums[0] = VectorValues.sumDoubles(input, type, rows, sums[0]);
            seen[0] |= rows > 0;
            return;
        }
        boolean hasNulls = VectorValues.readDoubles(input, type, rows, values, nulls);
        if (groups != null && !hasNulls) {
            double[] sums = this.sums;
            boolean[] seen = this.seen;
            for (int row = 0; row < rows; row++) {
                int group = groups[row];
                sums[group] += values[row];
                seen[group] = true;
            }
            return;
        }
        for (int row = 0; row < rows; row++) {
            if (hasNulls && nulls[row]) {
                continue;
            }
            int group = groups == null ? 0 : groups[row];
            sums[group] += values[row];
            seen[group] = true;
        }
    }

    @Override
    Object result(int group)
    {
        return seen[group] ? sums[group] : null;
    }
}
