package dev.ferry.gds.read;

import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.Optional;

/**
 * Exact comparisons of a DECIMAL(p, s) column, read from its {@link DecimalVector} (16-byte
 * little-endian two's-complement unscaled values), against a decimal literal of any scale.
 *
 * <p>Why no rounding error is possible: a literal L is kept as F = floor(L * 10^s), the largest
 * unscaled value at the column's scale not above it, and whether L equals F / 10^s. A row's unscaled
 * value u is then below L when u < F, or u = F and L is not exactly F / 10^s; equal to L only when
 * u = F and it is; above it when u > F. So {@code x < 1.005} on DECIMAL(15,2) keeps 1.00 and
 * drops 1.01, and {@code x = 1.005} matches nothing. F is clamped to +-10^p, beyond every value the
 * column can hold, which keeps it within 128 bits for any literal.
 */
final class DecimalValues
        extends ColumnValues
{
    private static final int WIDTH = DecimalVector.TYPE_WIDTH;

    private final int precision;
    private final int scale;

    DecimalValues(int column, DecimalType type)
    {
        super(column);
        this.precision = type.precision();
        this.scale = type.scale();
    }

    /** A literal at the column's scale: its floor's unscaled value as two longs, and whether it is exact. */
    record Bound(long high, long low, boolean exact) {}

    @Override
    boolean accepts(FieldVector vector)
    {
        return vector instanceof DecimalVector && ((DecimalVector) vector).getScale() == scale;
    }

    @Override
    Optional<Object> literal(Object literal)
    {
        BigDecimal value;
        if (literal instanceof BigDecimal) {
            value = (BigDecimal) literal;
        }
        else if (literal instanceof Decimal) {
            value = ((Decimal) literal).toJavaBigDecimal();
        }
        else {
            return Optional.empty();
        }
        BigDecimal floor = value.setScale(scale, RoundingMode.FLOOR);
        boolean exact = floor.compareTo(value) == 0;
        BigInteger unscaled = floor.unscaledValue();
        BigInteger limit = BigInteger.TEN.pow(precision);
        if (unscaled.compareTo(limit) > 0) {
            unscaled = limit;
        }
        else if (unscaled.compareTo(limit.negate()) < 0) {
            unscaled = limit.negate();
        }
        return Optional.of(new Bound(unscaled.shiftRight(64).longValue(), unscaled.longValue(), exact));
    }

    @Override
    int compare(FieldVector vector, int row, Object literal)
    {
        return sign(vector.getDataBufferAddress() + (long) row * WIDTH, (Bound) literal);
    }

    // The hot case (a range filter on a decimal column) without a call per row.
    @Override
    void compareRows(FieldVector vector, int rows, Object literal, Comparison op, byte nullOutcome, byte[] out)
    {
        Bound bound = (Bound) literal;
        long data = vector.getDataBufferAddress();
        long validity = vector.getValidityBufferAddress();
        for (int row = 0; row < rows; row++) {
            out[row] = isNull(validity, row) ? nullOutcome : op.outcome(sign(data + (long) row * WIDTH, bound));
        }
    }

    /** The sign of (value at {@code address}) - L, per the class comment. */
    private static int sign(long address, Bound bound)
    {
        long high = MemoryUtil.getLong(address + 8);
        int order = high != bound.high ? Long.compare(high, bound.high) : Long.compareUnsigned(MemoryUtil.getLong(address), bound.low);
        if (order != 0) {
            return order;
        }
        return bound.exact ? 0 : -1;
    }
}
