package dev.ferry.gds.aggregate;

import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.vectorized.ColumnVector;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.OptionalLong;

/**
 * SUM over DECIMAL(p, s) on unscaled values. Spark casts each partial back to DECIMAL(p, s) before
 * its final SUM (to keep the SUM's own type), so a partial must fit p digits: a group's partial is
 * spilled before the next value would take it past them. Up to 18 digits the unscaled values are
 * longs (two of them never overflow a long), above that BigIntegers.
 */
final class DecimalSumAccumulator
        extends Accumulator
{
    private final DecimalType type;
    private final boolean longs;
    // Up to 15 digits a batch's plain sum (under 9,000 rows) cannot overflow a long.
    private final boolean batchable;
    private final long limit;
    private final BigInteger bigLimit;
    private long[] sums = new long[0];
    private BigInteger[] bigSums = new BigInteger[0];
    private boolean[] seen = new boolean[0];
    private long[] values = new long[0];
    private boolean[] nulls = new boolean[0];

    DecimalSumAccumulator(int index, Spill spill, DecimalType type)
    {
        super(index, spill);
        this.type = type;
        this.longs = type.precision() <= Decimal.MAX_LONG_DIGITS();
        this.bigLimit = BigInteger.TEN.pow(type.precision()).subtract(BigInteger.ONE);
        this.limit = longs ? bigLimit.longValueExact() : Long.MAX_VALUE;
        this.batchable = type.precision() <= 15;
    }

    @Override
    void grow(int groups)
    {
        if (seen.length < groups) {
            int capacity = capacity(seen.length, groups);
            seen = Arrays.copyOf(seen, capacity);
            if (longs) {
                sums = Arrays.copyOf(sums, capacity);
            }
            else {
                int old = bigSums.length;
                bigSums = Arrays.copyOf(bigSums, capacity);
                Arrays.fill(bigSums, old, capacity, BigInteger.ZERO);
            }
        }
    }

    @Override
    void add(ColumnVector input, int rows, int[] groups)
    {
        if (!longs) {
            addBig(input, rows, groups);
            return;
        }
        if (groups == null && batchable && rows <= 9000 && !input.hasNull() && rows > 0
                && addPartial(VectorValues.sumNarrow(input, type, rows))) {
            return;
        }
        if (values.length < rows) {
            values = new long[rows];
            nulls = new boolean[rows];
        }
        boolean hasNulls = VectorValues.readLongs(input, type, rows, values, nulls);
        if (groups == null && batchable && rows <= 9000 && addBatch(rows, hasNulls)) {
            return;
        }
        for (int row = 0; row < rows; row++) {
            if (hasNulls && nulls[row]) {
                continue;
            }
            int group = groups == null ? 0 : groups[row];
            long value = values[row];
            long sum = sums[group];
            long next = sum + value;
            if (next > limit || next < -limit) {
                spill.spill(group, index, Decimal.createUnsafe(sum, type.precision(), type.scale()));
                next = value;
            }
            sums[group] = next;
            seen[group] = true;
        }
    }

    /**
     * Without groups: the batch's sum in a plain loop; where it fits p digits it joins the partial,
     * or replaces it after the partial is spilled. False (nothing added) where even the batch's sum
     * does not fit: the caller adds row by row.
     */
    private boolean addBatch(int rows, boolean hasNulls)
    {
        OptionalLong batch = sumPresent(values, nulls, rows, hasNulls);
        return batch.isEmpty() || addPartial(batch.getAsLong());
    }

    // Adds a batch's sum (of some non-null values) to the group-less partial; false where it does not fit p digits by itself.
    private boolean addPartial(long batch)
    {
        if (batch > limit || batch < -limit) {
            return false;
        }
        long sum = sums[0];
        long next = sum + batch;
        if (seen[0] && (next > limit || next < -limit)) {
            spill.spill(0, index, Decimal.createUnsafe(sum, type.precision(), type.scale()));
            next = batch;
        }
        sums[0] = next;
        seen[0] = true;
        return true;
    }

    private void addBig(ColumnVector input, int rows, int[] groups)
    {
        for (int row = 0; row < rows; row++) {
            if (input.isNullAt(row)) {
                continue;
            }
            int group = groups == null ? 0 : groups[row];
            BigInteger value = input.getDecimal(row, type.precision(), type.scale()).toJavaBigDecimal().setScale(type.scale()).unscaledValue();
            BigInteger next = bigSums[group].add(value);
            if (next.abs().compareTo(bigLimit) > 0) {
                spill.spill(group, index, big(bigSums[group]));
                next = value;
            }
            bigSums[group] = next;
            seen[group] = true;
        }
    }

    private Decimal big(BigInteger unscaled)
    {
        return Decimal.apply(new BigDecimal(unscaled, type.scale()), type.precision(), type.scale());
    }

    @Override
    Object result(int group)
    {
        if (!seen[group]) {
            return null;
        }
        return longs ? Decimal.createUnsafe(sums[group], type.precision(), type.scale()) : big(bigSums[group]);
    }
}
