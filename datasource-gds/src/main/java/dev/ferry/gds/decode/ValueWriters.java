package dev.ferry.gds.decode;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.gds.parquet.CalendarRebase;
import dev.ferry.gds.parquet.CorruptParquetException;
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
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.io.api.Binary;
import org.apache.spark.sql.catalyst.util.RebaseDateTime;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The general path's {@link ValueWriter}s, one per conversion; {@link ParquetSparkType} says which
 * Parquet and Spark type pair takes which.
 */
final class ValueWriters
{
    private static final int JULIAN_DAY_OF_EPOCH = 2440588;
    private static final long MICROS_PER_DAY = 86_400_000_000L;

    private ValueWriters() {}

    static FerryException beforeGregorianSwitch(String file, String column, String what)
    {
        return new FerryException(ErrorCategory.USER_ERROR, "Reading " + what + " before 1582-10-15 from " + file + " column " + column
                + " is ambiguous: the file may use the legacy hybrid calendar. Set spark.sql.parquet.datetimeRebaseModeInRead (or "
                + "int96RebaseModeInRead) to LEGACY to rebase or CORRECTED to read the values as they are.");
    }

    static final class NullWriter
            extends ValueWriter
    {
        @Override
        void bind(FieldVector target)
        {
        }

        @Override
        void write(ColumnReader reader, int index)
        {
            throw new IllegalStateException("A value in a column of the UNKNOWN (always null) logical type");
        }
    }

    static final class BooleanWriter
            extends ValueWriter
    {
        private BitVector vector;

        @Override
        void bind(FieldVector target)
        {
            vector = (BitVector) target;
        }

        @Override
        void write(ColumnReader reader, int index)
        {
            vector.setSafe(index, reader.getBoolean() ? 1 : 0);
        }
    }

    static final class ByteWriter
            extends ValueWriter
    {
        private TinyIntVector vector;

        @Override
        void bind(FieldVector target)
        {
            vector = (TinyIntVector) target;
        }

        @Override
        void write(ColumnReader reader, int index)
        {
            vector.setSafe(index, (byte) reader.getInteger());
        }
    }

    static final class ShortWriter
            extends ValueWriter
    {
        private SmallIntVector vector;

        @Override
        void bind(FieldVector target)
        {
            vector = (SmallIntVector) target;
        }

        @Override
        void write(ColumnReader reader, int index)
        {
            vector.setSafe(index, (short) reader.getInteger());
        }
    }

    static final class IntWriter
            extends ValueWriter
    {
        private IntVector vector;

        @Override
        void bind(FieldVector target)
        {
            vector = (IntVector) target;
        }

        @Override
        void write(ColumnReader reader, int index)
        {
            vector.setSafe(index, reader.getInteger());
        }
    }

    static final class IntToLongWriter
            extends ValueWriter
    {
        private BigIntVector vector;

        @Override
        void bind(FieldVector target)
        {
            vector = (BigIntVector) target;
        }

        @Override
        void write(ColumnReader reader, int index)
        {
            vector.setSafe(index, reader.getInteger());
        }
    }

    static final class UnsignedIntToLongWriter
            extends ValueWriter
    {
        private BigIntVector vector;

        @Override
        void bind(FieldVector target)
        {
            vector = (BigIntVector) target;
        }

        @Override
        void write(ColumnReader reader, int index)
        {
            vector.setSafe(index, Integer.toUnsignedLong(reader.getInteger()));
        }
    }

    static final class IntToDoubleWriter
            extends ValueWriter
    {
        private Float8Vector vector;

        @Override
        void bind(FieldVector target)
        {
            vector = (Float8Vector) target;
        }

        @Override
        void write(ColumnReader reader, int index)
        {
            vector.setSafe(index, reader.getInteger());
        }
    }

    static final class LongWriter
            extends ValueWriter
    {
        private BigIntVector vector;

        @Override
        void bind(FieldVector target)
        {
            vector = (BigIntVector) target;
        }

        @Override
        void write(ColumnReader reader, int index)
        {
            vector.setSafe(index, reader.getLong());
        }
    }

    static final class FloatWriter
            extends ValueWriter
    {
        private Float4Vector vector;

        @Override
        void bind(FieldVector target)
        {
            vector = (Float4Vector) target;
        }

        @Override
        void write(ColumnReader reader, int index)
        {
            vector.setSafe(index, reader.getFloat());
        }
    }

    static final class FloatToDoubleWriter
            extends ValueWriter
    {
        private Float8Vector vector;

        @Override
        void bind(FieldVector target)
        {
            vector = (Float8Vector) target;
        }

        @Override
        void write(ColumnReader reader, int index)
        {
            vector.setSafe(index, reader.getFloat());
        }
    }

    static final class DoubleWriter
            extends ValueWriter
    {
        private Float8Vector vector;

        @Override
        void bind(FieldVector target)
        {
            vector = (Float8Vector) target;
        }

        @Override
        void write(ColumnReader reader, int index)
        {
            vector.setSafe(index, reader.getDouble());
        }
    }

    static final class IntDecimalWriter
            extends ValueWriter
    {
        private DecimalVector vector;

        @Override
        void bind(FieldVector target)
        {
            vector = (DecimalVector) target;
        }

        @Override
        void write(ColumnReader reader, int index)
        {
            vector.setSafe(index, reader.getInteger());
        }
    }

    static final class LongDecimalWriter
            extends ValueWriter
    {
        private DecimalVector vector;

        @Override
        void bind(FieldVector target)
        {
            vector = (DecimalVector) target;
        }

        @Override
        void write(ColumnReader reader, int index)
        {
            vector.setSafe(index, reader.getLong());
        }
    }

    static final class UnsignedLongDecimalWriter
            extends ValueWriter
    {
        private DecimalVector vector;

        @Override
        void bind(FieldVector target)
        {
            vector = (DecimalVector) target;
        }

        @Override
        void write(ColumnReader reader, int index)
        {
            long value = reader.getLong();
            if (value >= 0) {
                vector.setSafe(index, value);
            }
            else {
                vector.setSafe(index, new BigDecimal(new BigInteger(Long.toUnsignedString(value))));
            }
        }
    }

    static final class BinaryDecimalWriter
            extends ValueWriter
    {
        private final String file;
        private final String column;
        private DecimalVector vector;

        BinaryDecimalWriter(String file, String column)
        {
            this.file = file;
            this.column = column;
        }

        @Override
        void bind(FieldVector target)
        {
            vector = (DecimalVector) target;
        }

        @Override
        void write(ColumnReader reader, int index)
        {
            byte[] bytes = reader.getBinary().getBytesUnsafe();
            if (bytes.length == 0) {
                throw new CorruptParquetException(file, "empty byte array for a decimal in column " + column);
            }
            if (bytes.length <= 16) {
                vector.setBigEndianSafe(index, bytes);
            }
            else {
                BigInteger unscaled = new BigInteger(bytes);
                vector.setSafe(index, new BigDecimal(unscaled, vector.getScale()));
            }
        }
    }

    static final class StringWriter
            extends ValueWriter
    {
        private VarCharVector vector;

        @Override
        void bind(FieldVector target)
        {
            vector = (VarCharVector) target;
        }

        @Override
        void write(ColumnReader reader, int index)
        {
            ByteBuffer bytes = reader.getBinary().toByteBuffer();
            vector.setSafe(index, bytes, bytes.position(), bytes.remaining());
        }
    }

    static final class BinaryWriter
            extends ValueWriter
    {
        private VarBinaryVector vector;

        @Override
        void bind(FieldVector target)
        {
            vector = (VarBinaryVector) target;
        }

        @Override
        void write(ColumnReader reader, int index)
        {
            ByteBuffer bytes = reader.getBinary().toByteBuffer();
            vector.setSafe(index, bytes, bytes.position(), bytes.remaining());
        }
    }

    static final class DateWriter
            extends ValueWriter
    {
        private final CalendarRebase rebase;
        private final String file;
        private final String column;
        private DateDayVector vector;

        DateWriter(CalendarRebase rebase, String file, String column)
        {
            this.rebase = rebase;
            this.file = file;
            this.column = column;
        }

        @Override
        void bind(FieldVector target)
        {
            vector = (DateDayVector) target;
        }

        @Override
        void write(ColumnReader reader, int index)
        {
            int days = reader.getInteger();
            if (days < RebaseDateTime.lastSwitchJulianDay()) {
                switch (rebase) {
                    case CORRECTED:
                        break;
                    case LEGACY:
                        days = RebaseDateTime.rebaseJulianToGregorianDays(days);
                        break;
                    case EXCEPTION:
                        throw beforeGregorianSwitch(file, column, "dates");
                }
            }
            vector.setSafe(index, days);
        }
    }

    static final class TimestampWriter
            extends ValueWriter
    {
        private final boolean millis;
        private final CalendarRebase rebase;
        private final String timeZone;
        private final String file;
        private final String column;
        private TimeStampVector vector;

        /** Millisecond timestamps read as stored (no calendar rebase): a multiply by 1000 is their whole conversion. */
        boolean millisAsStored()
        {
            return millis && rebase == CalendarRebase.CORRECTED;
        }

        TimestampWriter(boolean millis, CalendarRebase rebase, String timeZone, String file, String column)
        {
            this.millis = millis;
            this.rebase = rebase;
            this.timeZone = timeZone;
            this.file = file;
            this.column = column;
        }

        @Override
        void bind(FieldVector target)
        {
            vector = (TimeStampVector) target;
        }

        @Override
        void write(ColumnReader reader, int index)
        {
            long micros = millis ? Math.multiplyExact(reader.getLong(), 1000L) : reader.getLong();
            vector.setSafe(index, rebase(micros, rebase, timeZone, file, column, "timestamps"));
        }
    }

    static final class Int96Writer
            extends ValueWriter
    {
        private final CalendarRebase rebase;
        private final String timeZone;
        private final String file;
        private final String column;
        private TimeStampVector vector;

        Int96Writer(CalendarRebase rebase, String timeZone, String file, String column)
        {
            this.rebase = rebase;
            this.timeZone = timeZone;
            this.file = file;
            this.column = column;
        }

        @Override
        void bind(FieldVector target)
        {
            vector = (TimeStampVector) target;
        }

        @Override
        void write(ColumnReader reader, int index)
        {
            Binary binary = reader.getBinary();
            if (binary.length() != 12) {
                throw new CorruptParquetException(file, "INT96 value of " + binary.length() + " bytes in column " + column);
            }
            ByteBuffer bytes = binary.toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
            long nanosOfDay = bytes.getLong(bytes.position());
            int julianDay = bytes.getInt(bytes.position() + 8);
            long micros = (long) (julianDay - JULIAN_DAY_OF_EPOCH) * MICROS_PER_DAY + nanosOfDay / 1000;
            vector.setSafe(index, rebase(micros, rebase, timeZone, file, column, "INT96 timestamps"));
        }
    }

    private static long rebase(long micros, CalendarRebase rebase, String timeZone, String file, String column, String what)
    {
        if (micros >= RebaseDateTime.lastSwitchJulianTs()) {
            return micros;
        }
        switch (rebase) {
            case CORRECTED:
                return micros;
            case LEGACY:
                return RebaseDateTime.rebaseJulianToGregorianMicros(timeZone, micros);
            case EXCEPTION:
                throw beforeGregorianSwitch(file, column, what);
        }
        throw new IllegalStateException("Unknown rebase " + rebase);
    }
}
