package dev.ferry.gds.decode;

import org.apache.arrow.vector.BaseFixedWidthVector;
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
    FieldVector vector;

    /** Binds a fresh vector, sized for {@code rows} values when fixed-width. */
    void bind(FieldVector target, int rows)
    {
        this.vector = target;
        if (target instanceof BaseFixedWidthVector) {
            ((BaseFixedWidthVector) target).allocateNew(rows);
        }
        bound(target);
    }

    abstract void bound(FieldVector target);

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
}
