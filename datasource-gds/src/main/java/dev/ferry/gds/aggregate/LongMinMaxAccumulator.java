package dev.ferry.gds.aggregate;

import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnVector;

import java.util.Arrays;

/**
 * MIN and MAX over values that order as longs: integral, date, timestamp, boolean (false first, as
 * Spark orders it) and DECIMAL up to 18 digits (unscaled; one column has one scale).
 */
final class LongMinMaxAccumulator
        extends Accumulator
{
    private final DataType type;
    private final boolean max;
    private long[] best = new long[0];
    private boolean[] seen = new boolean[0];
    private long[] values = new long[0];
    private boolean[] nulls = new boolean[0];

    LongMinMaxAccumulator(int index, Spill spill, DataType type, boolean max)
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
            int old = best.length;
            best = Arrays.copyOf(best, capacity);
            seen = Arrays.copyOf(seen, capacity);
            // The identity of the comparison, so the loops need not ask whether a group has a value yet.
            Arrays.fill(best, old, capacity, max ? Long.MIN_VALUE : Long.MAX_VALUE);
        }
    }

    @Override
    void add(ColumnVector input, int rows, int[] groups)
    {
        if (values.length < rows) {
            values = new long[rows];
            nulls = new boolean[rows];
        }
        boolean hasNulls = VectorValues.readLongs(input, type, rows, values, nulls);
        if (groups == null && !hasNulls) {
            long result = best[0];
            if (max) {
                for (int row = 0; row < rows; row++) {
                    result = Math.max(result, values[row]);
                }
            }
            else {
                for (int row = 0; row < rows; row++) {
                    result = Math.min(result, values[row]);
                }
            }
            best[0] = result;
            seen[0] |= rows > 0;
            return;
        }
        if (groups != null && !hasNulls) {
            // The common grouped case: one loop per direction with no null test; best[] starts at the
            // comparison's identity, so only seen[] records that a group has a value.
            long[] best = this.best;
            boolean[] seen = this.seen;
            if (max) {
                for (int row = 0; row < rows; row++) {
                    int group = groups[row];
                    best[group] = Math.max(best[group], values[row]);
                    seen[group] = true;
                }
            }
            else {
                for (int row = 0; row < rows; row++) {
                    int group = groups[row];
                    best[group] = Math.min(best[group], values[row]);
                    seen[group] = true;
                }
            }
            return;
        }
        for (int row = 0; row < rows; row++) {
            if (hasNulls && nulls[row]) {
                continue;
            }
            int group = groups == null ? 0 : groups[row];
            long value = values[row];
            if (max ? value > best[group] : value < best[group]) {
                best[group] = value;
            }
            seen[group] = true;
        }
    }

    @Override
    Object result(int group)
    {
        return seen[group] ? VectorValues.fromLong(best[group], type) : null;
    }
}
