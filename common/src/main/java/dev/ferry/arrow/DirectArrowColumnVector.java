package dev.ferry.arrow;

import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A finished Arrow vector of a flat type as Spark's {@link ArrowColumnVector}, whose hot getters
 * read the Arrow buffers by address. Spark's accessors go through Arrow's getters, which check the
 * index and the validity bit on every call, and build a {@link java.math.BigDecimal} per decimal;
 * here a decimal of at most 18 digits is its low 8 bytes. Nested types and everything else stay
 * with the parent. The vector is never reallocated after decoding, so the addresses stay valid
 * for the batch's life. Used by both of Ferry's batch producers: the shuffle reader's decoded blocks
 * and the {@code gds} scan's decoded row groups.
 */
public final class DirectArrowColumnVector
        extends ArrowColumnVector
{
    private final long validity;
    private final long data;
    private final long offsets;
    private final boolean longDecimals;

    private DirectArrowColumnVector(FieldVector vector, boolean variableWidth, boolean longDecimals)
    {
        super(vector);
        this.validity = vector.getValidityBufferAddress();
        this.data = vector.getDataBufferAddress();
        this.offsets = variableWidth ? vector.getOffsetBufferAddress() : 0;
        this.longDecimals = longDecimals;
    }

    /** The address-reading vector where {@code vector}'s type is flat, else Spark's own. */
    public static ArrowColumnVector of(FieldVector vector)
    {
        if (vector.getValueCount() == 0) {
            return new ArrowColumnVector(vector);
        }
        if (vector instanceof TinyIntVector || vector instanceof SmallIntVector || vector instanceof IntVector || vector instanceof DateDayVector
                || vector instanceof BigIntVector || vector instanceof TimeStampVector || vector instanceof Float4Vector || vector instanceof Float8Vector
                || vector instanceof BitVector) {
            return new DirectArrowColumnVector(vector, false, false);
        }
        if (vector instanceof DecimalVector) {
            boolean fitsLong = ((DecimalVector) vector).getPrecision() <= Decimal.MAX_LONG_DIGITS();
            return fitsLong ? new DirectArrowColumnVector(vector, false, true) : new ArrowColumnVector(vector);
        }
        if (vector instanceof VarCharVector || vector instanceof VarBinaryVector) {
            return new DirectArrowColumnVector(vector, true, false);
        }
        return new ArrowColumnVector(vector);
    }

    @Override
    public boolean isNullAt(int rowId)
    {
        return (MemoryUtil.getByte(validity + (rowId >>> 3)) & (1 << (rowId & 7))) == 0;
    }

    @Override
    public boolean getBoolean(int rowId)
    {
        return (MemoryUtil.getByte(data + (rowId >>> 3)) & (1 << (rowId & 7))) != 0;
    }

    @Override
    public byte getByte(int rowId)
    {
        return MemoryUtil.getByte(data + rowId);
    }

    @Override
    public short getShort(int rowId)
    {
        return MemoryUtil.getShort(data + (long) rowId * 2);
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
        if (!longDecimals) {
            return super.getDecimal(rowId, precision, scale);
        }
        if (isNullAt(rowId)) {
            return null;
        }
        // Arrow's decimal is 16 bytes little-endian two's complement: up to 18 digits it is the low 8 bytes.
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
        int end = MemoryUtil.getInt(offsets + (long) rowId * 4 + 4);
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
        int end = MemoryUtil.getInt(offsets + (long) rowId * 4 + 4);
        byte[] bytes = new byte[end - start];
        MemoryUtil.copyFromMemory(data + start, bytes, 0, bytes.length);
        return bytes;
    }
}
