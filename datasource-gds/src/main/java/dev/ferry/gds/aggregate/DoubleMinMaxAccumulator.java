package dev.ferry.gds.aggregate;

import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.vectorized.ColumnVector;

import java.util.Arrays;

/**
 * MIN and MAX over FLOAT and DOUBLE in Spark's order: equal values (including -0.0 and 0.0) compare
 * equal and the first one stays, otherwise {@link Double#compare} (NaN above positive infinity).
 * Floats are compared widened, which keeps their order.
 */
final class DoubleMinMaxAccumulator
        extends Accumulator
{
    private final DataType type;
    private final boolean max;
    private double[] best = new double[0];
    private boolean[] seen = new boolean[0];
    private double[] values = new double[0];
    private boolean[] nulls = new boolean[0];

    DoubleMinMaxAccumulator(int index, Spill spill, DataType type, boolean max)
    {
        super(index, spill);
        this.type = type;
        this.max = max;
    }

    @Override
    void grow(int groups)
    {
        if (best.length < groups) {
            int capacity = capacity(best.length, groups);
            best = Arrays.copyOf(best, capacity);
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
        boolean hasNulls = VectorValues.readDoubles(input, type, rows, values, nulls);
        for (int row = 0; row < rows; row++) {
            if (hasNulls && nulls[row]) {
                continue;
            }
            int group = groups == null ? 0 : groups[row];
            double value = values[row];
            if (!seen[group]) {
                best[group] = value;
                seen[group] = true;
                continue;
            }
            int order = compare(value, best[group]);
            if (max ? order > 0 : order < 0) {
                best[group] = value;
            }
        }
    }

    /** Spark's order of doubles. */
    static int compare(double left, double right)
    {
        return left == right ? 0 : Double.compare(left, right);
    }

    @Override
    Object result(int group)
    {
        if (!seen[group]) {
            return null;
        }
        return type instanceof FloatType ? (Object) (float) best[group] : (Object) best[group];
    }
}
