package dev.ferry.gds.aggregate;

import org.apache.spark.sql.vectorized.ColumnVector;

import java.util.Arrays;

/** COUNT(*) and COUNT(column): rows, or rows with a non-null value. */
final class CountAccumulator
        extends Accumulator
{
    private final boolean star;
    private long[] counts = new long[0];

    CountAccumulator(int index, Spill spill, boolean star)
    {
        super(index, spill);
        this.star = star;
    }

    @Override
    void grow(int groups)
    {
        if (counts.length < groups) {
            counts = Arrays.copyOf(counts, capacity(counts.length, groups));
        }
    }

    @Override
    void add(ColumnVector input, int rows, int[] groups)
    {
        boolean all = star || !input.hasNull();
        if (groups == null) {
            if (all) {
                counts[0] += rows;
                return;
            }
            long count = 0;
            for (int row = 0; row < rows; row++) {
                count += input.isNullAt(row) ? 0 : 1;
            }
            counts[0] += count;
            return;
        }
        long[] counts = this.counts;
        if (all) {
            for (int row = 0; row < rows; row++) {
                counts[groups[row]]++;
            }
            return;
        }
        for (int row = 0; row < rows; row++) {
            if (!input.isNullAt(row)) {
                counts[groups[row]]++;
            }
        }
    }

    /** Rows known from metadata alone (COUNT(*) without GROUP BY). */
    void addRows(long rows)
    {
        counts[0] += rows;
    }

    @Override
    Object result(int group)
    {
        return counts[group];
    }

    @Override
    Object empty()
    {
        return 0L;
    }
}
