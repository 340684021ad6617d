package dev.ferry.gds.spark;

import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Spark's {@link ArrowColumnVector} for a finished top-level vector of a flat type, with the hot
 * accessors reading the vector's buffers by address: Arrow's getters check bounds and nulls on every
 * call, and {@code getDecimal} builds a {@link java.math.BigDecimal} per value, where a decimal of
 * precision 18 or less is one long. Everything else is the parent's. The vector must not be
 * reallocated after this wraps it (a decoded batch never is).
 */
final class FlatArrowColumnVector
        extends ArrowColumnVector
{
    private final long validity;
    private final long data;
    private final long offsets;
    private final boolean longDecimals;

    private FlatArrowColumnVector(FieldVector vector, boolean variableWidth, boolean longDecimals)
    {
        super(vector);
        this.validity = vector.getValidityBufferAddress();
        this.data = vector.getDataBufferAddress();
        this.offsets = variableWidth ? vector.getOffsetBufferAddress() : 0;
        this.longDecimals = longDecimals;
    }

    /** The fast wrapper where {@code vector}'s type has one, else Spark's own. */
    static ArrowColumnVector of(FieldVector vector)
    {
        if (vector.getValueCount() == 0) {
            return new ArrowColumnVector(vector);
        }
        if (vector instanceof IntVector || vector instanceof DateDayVector || vector instanceof BigIntVector || vector instanceof TimeStampVector
                || vector instanceof Float4Vector || vector instanceof Float8Vector || vector instanceof BitVector) {
            return new FlatArrowColumnVector(vector, false, false);
        }
        if (vector instanceof DecimalVector) {
            return ((DecimalVector) vector).getPrecision() <= Decimal.MAX_LONG_DIGITS() ? new FlatArrowColumnVector(vector, false, true) : new ArrowColumnVector(vector);
        }
        if (vector instanceof VarCharVector || vector instanceof VarBinaryVector) {
            return new FlatArrowColumnVector(vector, true, false);
        }
        return new ArrowColumnVector(vector);
    }

    @Override
    public boolean isNullAt(int rowId)
    {
        return ((MemoryUtil.getByte(validity + (rowId >>> 3)) >>> (rowId & 7)) & 1) == 0;
    }

    @Override
    public boolean getBoolean(int rowId)
    {
        return ((MemoryUtil.getByte(data + (rowId >>> 3)) >>> (rowId & 7)) & 1) != 0;
    }

    @Override
    public int getInt(int rowId)
    {
        return MemoryUtil.getInt(data + (long) rowId * 4);
    }

    @Override
    public long getLong(int rowId)
    {
        return MemoryUtil.getLong(data + (long) rowId * 8);
    }

    @Override
    public float getFloat(int rowId)
    {
        return Float.intBitsToFloat(MemoryUtil.getInt(data + (long) rowId * 4));
    }

    @Override
    public double getDouble(int rowId)
    {
        return Double.longBitsToDouble(MemoryUtil.getLong(data + (long) rowId * 8));
    }

    @Override
    public Decimal getDecimal(int rowId, int precision, int scale)
    {
        if (isNullAt(rowId)) {
            return null;
        }
        if (!longDecimals) {
            return super.getDecimal(rowId, precision, scale);
        }
        // Arrow stores 16-byte little-endian two's complement; a value of at most 18 digits is its low 8 bytes.
        return Decimal.createUnsafe(MemoryUtil.getLong(data + (long) rowId * 16), precision, scale);
    }

    @Override
    public UTF8String getUTF8String(int rowId)
    {
        if (offsets == 0) {
            return super.getUTF8String(rowId);
        }
        if (isNullAt(rowId)) {
            return null;
        }
        int start = MemoryUtil.getInt(offsets + (long) rowId * 4);
        int end = MemoryUtil.getInt(offsets + (long) (rowId + 1) * 4);
        return UTF8String.fromAddress(null, data + start, end - start);
    }

    @Override
    public byte[] getBinary(int rowId)
    {
        if (offsets == 0) {
            return super.getBinary(rowId);
        }
        if (isNullAt(rowId)) {
            return null;
        }
        int start = MemoryUtil.getInt(offsets + (long) rowId * 4);
        int end = MemoryUtil.getInt(offsets + (long) (rowId + 1) * 4);
        byte[] bytes = new byte[end - start];
        MemoryUtil.copyFromMemory(data + start, bytes, 0, bytes.length);
        return bytes;
    }
}
