package dev.ferry.gds.decode;

import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;

import java.nio.ByteBuffer;

/** Where the flat fast path puts a value: one Arrow vector type, with no conversion beyond widening to its width. */
abstract class FlatTarget
{
    /** How {@link FlatLeafReader} writes values: straight into the vector's buffers, or through the setters when they need converting. */
    enum Kind
    {
        /** 4-byte values stored as Parquet has them (INT32, FLOAT). */
        FIXED4,
        /** 8-byte values stored as Parquet has them (INT64, DOUBLE). */
        FIXED8,
        /** Bits. */
        BOOL,
        /** INT96 (nanos of day, Julian day) converted to microseconds, no calendar rebase. */
        INT96,
        /** Offsets and data of a variable-width vector. */
        VARBYTES,
        /** INT32/INT64 unscaled decimals widened to Arrow's 16-byte decimals. */
        DECIMAL,
    }

    // A batch's strings usually fit this first data buffer; more grows it by doubling.
    private static final long INITIAL_BYTES_PER_ROW = 16;

    FieldVector vector;

    /** Binds a fresh vector, sized for {@code rows} values (with zeroed validity). */
    void bind(FieldVector target, int rows)
    {
        this.vector = target;
        if (target instanceof BaseFixedWidthVector) {
            ((BaseFixedWidthVector) target).allocateNew(rows);
        }
        else if (target instanceof BaseVariableWidthVector) {
            ((BaseVariableWidthVector) target).allocateNew(Math.max(4096, rows * INITIAL_BYTES_PER_ROW), rows);
        }
        bound(target);
    }

    abstract void bound(FieldVector target);

    abstract Kind kind();

    void setInt(int row, int value)
    {
        throw new IllegalStateException(getClass().getSimpleName() + " takes no INT32");
    }

    void setLong(int row, long value)
    {
        throw new IllegalStateException(getClass().getSimpleName() + " takes no INT64");
    }

    void setFloat(int row, float value)
    {
        throw new IllegalStateException(getClass().getSimpleName() + " takes no FLOAT");
    }

    void setDouble(int row, double value)
    {
        throw new IllegalStateException(getClass().getSimpleName() + " takes no DOUBLE");
    }

    void setBytes(int row, ByteBuffer bytes, int start, int length)
    {
        throw new IllegalStateException(getClass().getSimpleName() + " takes no BYTE_ARRAY");
    }

    static final class Ints
            extends FlatTarget
    {
        @Override
        Kind kind()
        {
            return Kind.FIXED4;
        }

        private IntVector ints;

        @Override
        void bound(FieldVector target)
        {
            ints = (IntVector) target;
        }

        @Override
        void setInt(int row, int value)
        {
            ints.set(row, value);
        }
    }

    static final class Dates
            extends FlatTarget
    {
        @Override
        Kind kind()
        {
            return Kind.FIXED4;
        }

        private DateDayVector dates;

        @Override
        void bound(FieldVector target)
        {
            dates = (DateDayVector) target;
        }

        @Override
        void setInt(int row, int value)
        {
            dates.set(row, value);
        }
    }

    static final class Longs
            extends FlatTarget
    {
        @Override
        Kind kind()
        {
            return Kind.FIXED8;
        }

        private BigIntVector longs;

        @Override
        void bound(FieldVector target)
        {
            longs = (BigIntVector) target;
        }

        @Override
        void setLong(int row, long value)
        {
            longs.set(row, value);
        }
    }

    static final class Timestamps
            extends FlatTarget
    {
        @Override
        Kind kind()
        {
            return Kind.FIXED8;
        }

        private TimeStampVector timestamps;

        @Override
        void bound(FieldVector target)
        {
            timestamps = (TimeStampVector) target;
        }

        @Override
        void setLong(int row, long value)
        {
            timestamps.set(row, value);
        }
    }

    static final class Decimals
            extends FlatTarget
    {
        @Override
        Kind kind()
        {
            return Kind.DECIMAL;
        }

        private DecimalVector decimals;

        @Override
        void bound(FieldVector target)
        {
            decimals = (DecimalVector) target;
        }

        @Override
        void setInt(int row, int value)
        {
            decimals.set(row, value);
        }

        @Override
        void setLong(int row, long value)
        {
            decimals.set(row, value);
        }
    }

    static final class Floats
            extends FlatTarget
    {
        @Override
        Kind kind()
        {
            return Kind.FIXED4;
        }

        private Float4Vector floats;

        @Override
        void bound(FieldVector target)
        {
            floats = (Float4Vector) target;
        }

        @Override
        void setFloat(int row, float value)
        {
            floats.set(row, value);
        }
    }

    static final class Doubles
            extends FlatTarget
    {
        @Override
        Kind kind()
        {
            return Kind.FIXED8;
        }

        private Float8Vector doubles;

        @Override
        void bound(FieldVector target)
        {
            doubles = (Float8Vector) target;
        }

        @Override
        void setDouble(int row, double value)
        {
            doubles.set(row, value);
        }
    }

    static final class Strings
            extends FlatTarget
    {
        @Override
        Kind kind()
        {
            return Kind.VARBYTES;
        }

        private VarCharVector strings;

        @Override
        void bound(FieldVector target)
        {
            strings = (VarCharVector) target;
        }

        @Override
        void setBytes(int row, ByteBuffer bytes, int start, int length)
        {
            strings.setSafe(row, bytes, start, length);
        }
    }

    static final class Binaries
            extends FlatTarget
    {
        @Override
        Kind kind()
        {
            return Kind.VARBYTES;
        }

        private VarBinaryVector binaries;

        @Override
        void bound(FieldVector target)
        {
            binaries = (VarBinaryVector) target;
        }

        @Override
        void setBytes(int row, ByteBuffer bytes, int start, int length)
        {
            binaries.setSafe(row, bytes, start, length);
        }
    }

    static final class Booleans
            extends FlatTarget
    {
        @Override
        Kind kind()
        {
            return Kind.BOOL;
        }

        @Override
        void bound(FieldVector target)
        {
            if (!(target instanceof BitVector)) {
                throw new IllegalStateException("Booleans need a BitVector, got " + target.getClass().getSimpleName());
            }
        }
    }

    static final class Int96Timestamps
            extends FlatTarget
    {
        @Override
        Kind kind()
        {
            return Kind.INT96;
        }

        @Override
        void bound(FieldVector target)
        {
            if (!(target instanceof TimeStampVector)) {
                throw new IllegalStateException("INT96 timestamps need a TimeStampVector, got " + target.getClass().getSimpleName());
            }
        }
    }
}
