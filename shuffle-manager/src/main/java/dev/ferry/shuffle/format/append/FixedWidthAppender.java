package dev.ferry.shuffle.format.append;

import java.math.BigInteger;

import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.Platform;

import static java.util.Objects.requireNonNull;

/**
 * Fixed-width Arrow vectors (booleans, integers, dates, timestamps, floating point, decimals)
 * filled by address. Arrow's {@code setSafe} checks capacity, bounds and the
 * reference count on every value, and Spark's decimal writer goes through a {@code BigDecimal};
 * here the capacity is checked once per value against a cached count and values are stored with
 * plain memory writes. Validity and boolean bits are set or cleared explicitly, so nothing depends
 * on how Arrow zeroed a reused buffer.
 */
final class FixedWidthAppender
        extends ColumnAppender
{
    private final BaseFixedWidthVector vector;
    private final FixedKind kind;
    private final int precision;
    private final int scale;
    private int capacity;
    private long validity;
    private long data;

    FixedWidthAppender(BaseFixedWidthVector vector, FixedKind kind, int precision, int scale)
    {
        this.vector = requireNonNull(vector, "vector is null");
        this.kind = requireNonNull(kind, "kind is null");
        this.precision = precision;
        this.scale = scale;
        vector.allocateNew();
        refresh();
    }

    private void refresh()
    {
        capacity = vector.getValueCapacity();
        validity = vector.getValidityBufferAddress();
        data = vector.getDataBufferAddress();
    }

    @Override
    public void append(SpecializedGetters row, int ordinal, int index)
    {
        while (index >= capacity) {
            vector.reAlloc();
            refresh();
        }
        if (row.isNullAt(ordinal)) {
            setBit(validity, index, false);
            return;
        }
        switch (kind) {
            case BOOLEAN:
                setBit(data, index, row.getBoolean(ordinal));
                break;
            case BYTE:
                MemoryUtil.putByte(data + index, row.getByte(ordinal));
                break;
            case SHORT:
                MemoryUtil.putShort(data + (long) index * 2, row.getShort(ordinal));
                break;
            case INT:
                MemoryUtil.putInt(data + (long) index * 4, row.getInt(ordinal));
                break;
            case LONG:
                MemoryUtil.putLong(data + (long) index * 8, row.getLong(ordinal));
                break;
            case FLOAT:
                MemoryUtil.putInt(data + (long) index * 4, Float.floatToRawIntBits(row.getFloat(ordinal)));
                break;
            case DOUBLE:
                MemoryUtil.putLong(data + (long) index * 8, Double.doubleToRawLongBits(row.getDouble(ordinal)));
                break;
            case DECIMAL64: {
                long unscaled;
                if (row instanceof UnsafeRow) {
                    // UnsafeRowWriter stores a decimal of up to 18 digits as its unscaled long, already
                    // at the column's precision and scale (null where it did not fit): no Decimal needed.
                    unscaled = row.getLong(ordinal);
                }
                else {
                    Decimal decimal = fittedDecimal(row, ordinal);
                    if (decimal == null) {
                        setBit(validity, index, false);
                        return;
                    }
                    unscaled = decimal.toUnscaledLong();
                }
                // Arrow's decimal: 16 bytes little-endian two's complement; the high half is the sign extension.
                MemoryUtil.putLong(data + (long) index * 16, unscaled);
                MemoryUtil.putLong(data + (long) index * 16 + 8, unscaled >> 63);
                break;
            }
            case DECIMAL128:
                if (!putDecimal128(row, ordinal, data + (long) index * 16)) {
                    setBit(validity, index, false);
                    return;
                }
                break;
            default:
                throw new IllegalStateException("Unknown fixed-width kind " + kind);
        }
        setBit(validity, index, true);
    }

    @Override
    public void appendAll(SpecializedGetters[] rows, int count, int ordinal, int firstIndex)
    {
        for (int i = 0; i < count; i++) {
            append(rows[i], ordinal, firstIndex + i);
        }
    }

    /**
     * A decimal of more than 18 digits. An UnsafeRow holds it as the unscaled value's big-endian
     * two's complement bytes (at most 16), already of the column's precision and scale: those are
     * widened to Arrow's 16 little-endian bytes without the two BigIntegers and the BigDecimal that
     * {@code getDecimal} and Arrow's setter would create. Other rows go through Spark's decimal,
     * rescaled as Spark's Arrow writer does (null where it does not fit).
     */
    private boolean putDecimal128(SpecializedGetters row, int ordinal, long target)
    {
        long low;
        long high;
        if (row instanceof UnsafeRow) {
            UnsafeRow unsafe = (UnsafeRow) row;
            long offsetAndSize = unsafe.getLong(ordinal);
            int size = (int) offsetAndSize;
            Object base = unsafe.getBaseObject();
            long at = unsafe.getBaseOffset() + (offsetAndSize >>> 32);
            if (size < 1 || size > 16) {
                throw new IllegalStateException("decimal(" + precision + "," + scale + ") of " + size + " bytes in an UnsafeRow");
            }
            // UnsafeRowWriter reserves and zero-fills 16 bytes for such a decimal, so both words can
            // be read whole: as a 128-bit big-endian number they hold the value followed by
            // 16 - size zero bytes, which an arithmetic shift right removes (keeping the sign).
            long first = Long.reverseBytes(Platform.getLong(base, at));
            long second = Long.reverseBytes(Platform.getLong(base, at + 8));
            int shift = 8 * (16 - size);
            if (shift == 0) {
                high = first;
                low = second;
            }
            else if (shift < 64) {
                high = first >> shift;
                low = (second >>> shift) | (first << (64 - shift));
            }
            else {
                high = first >> 63;
                low = first >> (shift - 64);
            }
        }
        else {
            Decimal decimal = fittedDecimal(row, ordinal);
            if (decimal == null) {
                return false;
            }
            BigInteger unscaled = decimal.toJavaBigDecimal().unscaledValue();
            low = unscaled.longValue();
            high = unscaled.shiftRight(64).longValue();
        }
        MemoryUtil.putLong(target, low);
        MemoryUtil.putLong(target + 8, high);
        return true;
    }

    /**
     * The row's decimal at the column's precision and scale, or null where it is null or does not
     * fit (written as null, like Spark's own Arrow writer). A value already of the column's
     * precision and scale (the usual case) is not rescaled.
     */
    private Decimal fittedDecimal(SpecializedGetters row, int ordinal)
    {
        Decimal decimal = row.getDecimal(ordinal, precision, scale);
        if (decimal == null || ((decimal.precision() != precision || decimal.scale() != scale) && !decimal.changePrecision(precision, scale))) {
            return null;
        }
        return decimal;
    }

    static void setBit(long address, int index, boolean value)
    {
        long at = address + (index >>> 3);
        byte current = MemoryUtil.getByte(at);
        int mask = 1 << (index & 7);
        MemoryUtil.putByte(at, (byte) (value ? current | mask : current & ~mask));
    }

    @Override
    public void finish(int rows)
    {
        vector.setValueCount(rows);
        refresh();
    }

    @Override
    public void reset()
    {
        vector.reset();
        refresh();
    }

    @Override
    public long sizeInBytes(int rows)
    {
        long values = kind == FixedKind.BOOLEAN ? (rows + 7) / 8 : (long) rows * kind.width();
        return values + (rows + 7) / 8;
    }
}
