package dev.ferry.gds.aggregate;

import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.vectorized.ColumnVector;

import java.util.OptionalLong;

/**
 * One pushed aggregate's partial results, one per group (group ids are dense, from 0). Each
 * partial is what Spark's own partial aggregation would hold for the rows added, so Spark's final
 * aggregation over them gives Spark's answer:
 * <ul>
 * <li>nulls are skipped; a group without a non-null value has a null SUM, MIN and MAX and a COUNT of 0;</li>
 * <li>a SUM whose next value would leave the range Spark reads the partial in (a long for integral
 * sums; the input's own DECIMAL(p, s), which Spark casts the partial to, for decimal sums) is
 * handed to {@link Spill} first and restarted, so no partial ever overflows: an overflow of the
 * whole sum then happens, or not, in Spark's final SUM, with Spark's error or null under its ANSI
 * setting;</li>
 * <li>floating MIN and MAX order as Spark's: NaN above everything, -0.0 equal to 0.0, the first
 * of equal values kept.</li>
 * </ul>
 */
abstract class Accumulator
{
    /** Receives a partial that had to be emitted early; Spark adds it to the group's other partials. */
    interface Spill
    {
        void spill(int group, int aggregate, Object partial);
    }

    protected final int index;
    protected final Spill spill;

    protected Accumulator(int index, Spill spill)
    {
        this.index = index;
        this.spill = spill;
    }

    /** Makes room for groups {@code 0 .. groups - 1}. */
    abstract void grow(int groups);

    /**
     * Adds {@code rows} rows of {@code input} (null for COUNT(*)); row {@code r} belongs to group
     * {@code groups[r]}, or to group 0 where {@code groups} is null.
     */
    abstract void add(ColumnVector input, int rows, int[] groups);

    /** The group's partial, as Spark holds a value of the aggregate's output type, or null. */
    abstract Object result(int group);

    /** The partial of a row that holds none of this aggregate's input: null, except for counts. */
    Object empty()
    {
        return null;
    }

    /**
     * The plain sum of the first {@code rows} of {@code values}, nulls (where {@code hasNulls}) taken
     * as 0, or empty when every row is null. The caller knows the sum cannot overflow a long.
     */
    static OptionalLong sumPresent(long[] values, boolean[] nulls, int rows, boolean hasNulls)
    {
        long sum = 0;
        int present = 0;
        for (int row = 0; row < rows; row++) {
            if (!hasNulls || !nulls[row]) {
                sum += values[row];
                present++;
            }
        }
        return present == 0 ? OptionalLong.empty() : OptionalLong.of(sum);
    }

    static Accumulator of(PushedAggregate aggregate, int index, Spill spill)
    {
        return switch (aggregate.kind()) {
            case COUNT_STAR, COUNT -> new CountAccumulator(index, spill, aggregate.kind() == AggregateKind.COUNT_STAR);
            case SUM -> {
                if (aggregate.inputType() instanceof DoubleType || aggregate.inputType() instanceof FloatType) {
                    yield new DoubleSumAccumulator(index, spill, aggregate.inputType());
                }
                if (aggregate.inputType() instanceof DecimalType decimal) {
                    yield new DecimalSumAccumulator(index, spill, decimal);
                }
                yield new LongSumAccumulator(index, spill, aggregate.inputType());
            }
            case MIN, MAX -> {
                boolean max = aggregate.kind() == AggregateKind.MAX;
                if (aggregate.inputType() instanceof DoubleType || aggregate.inputType() instanceof FloatType) {
                    yield new DoubleMinMaxAccumulator(index, spill, aggregate.inputType(), max);
                }
                if (VectorValues.longBacked(aggregate.inputType())) {
                    yield new LongMinMaxAccumulator(index, spill, aggregate.inputType(), max);
                }
                if (aggregate.inputType() instanceof StringType || aggregate.inputType() instanceof DecimalType) {
                    yield new ObjectMinMaxAccumulator(index, spill, aggregate.inputType(), max);
                }
                throw new IllegalArgumentException("No MIN/MAX over " + aggregate.inputType());
            }
        };
    }

    static int capacity(int current, int needed)
    {
        return Math.max(needed, Math.max(16, current * 2));
    }
}
