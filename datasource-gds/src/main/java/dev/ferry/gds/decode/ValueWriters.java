package dev.ferry.gds.decode;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.gds.io.CorruptParquetException;
import dev.ferry.gds.plan.CalendarRebase;
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
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DateLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DecimalLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.IntLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimestampLogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.spark.sql.catalyst.util.RebaseDateTime;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Picks the {@link ValueWriter} for a Parquet leaf read as a Spark type. The pairs accepted are the
 * ones Spark's schema conversion produces (plus the widenings int to long and double, float to
 * double); anything else is refused naming the file and column, never converted by guess.
 */
final class ValueWriters
{
    private static final int JULIAN_DAY_OF_EPOCH = 2440588;
    private static final long MICROS_PER_DAY = 86_400_000_000L;

    private ValueWriters() {}

    static ValueWriter create(PrimitiveType parquet, DataType spark, DatetimeRules rules, String file, String column)
    {
        LogicalTypeAnnotation logical = parquet.getLogicalTypeAnnotation();
        if (logical instanceof LogicalTypeAnnotation.UnknownLogicalTypeAnnotation) {
            // UNKNOWN says every value is null; Spark then reads the column by its physical type.
            logical = null;
        }
        if (spark instanceof NullType) {
            // Spark reads the UNKNOWN (always null) logical type as NullType; there is no value to move.
            return new NullWriter();
        }
        switch (parquet.getPrimitiveTypeName()) {
            case BOOLEAN:
                if (spark instanceof BooleanType) {
                    return new BooleanWriter();
                }
                break;
            case INT32:
                return int32(logical, spark, rules, file, column, parquet);
            case INT64:
                return int64(logical, spark, rules, file, column, parquet);
            case INT96:
                if (rules.int96ZoneConversion()) {
                    throw new UnsupportedParquetException(file, column, "spark.sql.parquet.int96TimestampConversion=true (shifting INT96 values "
                            + "written by other tools between time zones) is not supported yet");
                }
                if (spark instanceof TimestampType) {
                    return new Int96Writer(rules.int96(), rules.rebaseTimeZone(), file, column);
                }
                break;
            case FLOAT:
                if (spark instanceof FloatType) {
                    return new FloatWriter();
                }
                if (spark instanceof DoubleType) {
                    return new FloatToDoubleWriter();
                }
                break;
            case DOUBLE:
                if (spark instanceof DoubleType) {
                    return new DoubleWriter();
                }
                break;
            case BINARY:
            case FIXED_LEN_BYTE_ARRAY:
                return bytes(logical, spark, file, column, parquet);
        }
        throw unsupported(parquet, spark, file, column);
    }

    private static ValueWriter int32(LogicalTypeAnnotation logical, DataType spark, DatetimeRules rules, String file, String column, PrimitiveType parquet)
    {
        if (logical instanceof DecimalLogicalTypeAnnotation) {
            checkDecimal((DecimalLogicalTypeAnnotation) logical, spark, parquet, file, column);
            return new IntDecimalWriter();
        }
        if (logical instanceof DateLogicalTypeAnnotation) {
            if (spark instanceof DateType) {
                return new DateWriter(rules.datetime(), file, column);
            }
            throw unsupported(parquet, spark, file, column);
        }
        boolean unsigned = false;
        if (logical instanceof IntLogicalTypeAnnotation) {
            unsigned = !((IntLogicalTypeAnnotation) logical).isSigned();
        }
        else if (logical != null) {
            throw unsupported(parquet, spark, file, column);
        }
        if (spark instanceof LongType) {
            return unsigned ? new UnsignedIntToLongWriter() : new IntToLongWriter();
        }
        if (!unsigned || ((IntLogicalTypeAnnotation) logical).getBitWidth() < 32) {
            // Spark reads UINT_8 as short and UINT_16 as int; their values fit as they are.
            if (spark instanceof IntegerType) {
                return new IntWriter();
            }
            if (spark instanceof ShortType) {
                return new ShortWriter();
            }
            if (spark instanceof ByteType) {
                return new ByteWriter();
            }
            if (spark instanceof DoubleType && !unsigned) {
                return new IntToDoubleWriter();
            }
        }
        throw unsupported(parquet, spark, file, column);
    }

    private static ValueWriter int64(LogicalTypeAnnotation logical, DataType spark, DatetimeRules rules, String file, String column, PrimitiveType parquet)
    {
        if (logical instanceof DecimalLogicalTypeAnnotation) {
            checkDecimal((DecimalLogicalTypeAnnotation) logical, spark, parquet, file, column);
            return new LongDecimalWriter();
        }
        if (logical instanceof TimestampLogicalTypeAnnotation) {
            TimeUnit unit = ((TimestampLogicalTypeAnnotation) logical).getUnit();
            if (unit == TimeUnit.NANOS && spark instanceof LongType) {
                // spark.sql.legacy.parquet.nanosAsLong: the raw nanoseconds.
                return new LongWriter();
            }
            if ((spark instanceof TimestampType || spark instanceof TimestampNTZType) && unit != TimeUnit.NANOS) {
                return new TimestampWriter(unit == TimeUnit.MILLIS, spark instanceof TimestampType ? rules.datetime() : CalendarRebase.CORRECTED,
                        rules.rebaseTimeZone(), file, column);
            }
            throw unsupported(parquet, spark, file, column);
        }
        if (logical instanceof IntLogicalTypeAnnotation && !((IntLogicalTypeAnnotation) logical).isSigned()) {
            if (spark instanceof DecimalType && ((DecimalType) spark).scale() == 0 && ((DecimalType) spark).precision() >= 20) {
                return new UnsignedLongDecimalWriter();
            }
            throw unsupported(parquet, spark, file, column);
        }
        if (logical != null && !(logical instanceof IntLogicalTypeAnnotation)) {
            throw unsupported(parquet, spark, file, column);
        }
        if (spark instanceof LongType) {
            return new LongWriter();
        }
        throw unsupported(parquet, spark, file, column);
    }

    private static ValueWriter bytes(LogicalTypeAnnotation logical, DataType spark, String file, String column, PrimitiveType parquet)
    {
        if (logical instanceof DecimalLogicalTypeAnnotation) {
            checkDecimal((DecimalLogicalTypeAnnotation) logical, spark, parquet, file, column);
            return new BinaryDecimalWriter(file, column);
        }
        boolean fixed = parquet.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY;
        if (spark instanceof StringType && !fixed) {
            return new StringWriter();
        }
        if (spark instanceof BinaryType && (logical == null || !fixed)) {
            return new BinaryWriter();
        }
        throw unsupported(parquet, spark, file, column);
    }

    private static void checkDecimal(DecimalLogicalTypeAnnotation decimal, DataType spark, PrimitiveType parquet, String file, String column)
    {
        if (!(spark instanceof DecimalType)) {
            throw unsupported(parquet, spark, file, column);
        }
        DecimalType target = (DecimalType) spark;
        if (target.scale() != decimal.getScale() || target.precision() < decimal.getPrecision()) {
            throw new UnsupportedParquetException(file, column, "decimal(" + decimal.getPrecision() + "," + decimal.getScale() + ") read as "
                    + target.simpleString() + " would need rescaling, which is not supported yet");
        }
    }

    private static UnsupportedParquetException unsupported(PrimitiveType parquet, DataType spark, String file, String column)
    {
        return new UnsupportedParquetException(file, column, "Parquet type " + parquet + " read as Spark " + spark.simpleString() + " is not supported yet");
    }

    static FerryException beforeGregorianSwitch(String file, String column, String what)
    {
        return new FerryException(ErrorCategory.USER_ERROR, "Reading " + what + " before 1582-10-15 from " + file + " column " + column
                + " is ambiguous: the file may use the legacy hybrid calendar. Set spark.sql.parquet.datetimeRebaseModeInRead (or "
                + "int96RebaseModeInRead) to LEGACY to rebase or CORRECTED to read the values as they are.");
    }

    private static final class NullWriter
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

    private static final class BooleanWriter
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

    private static final class ByteWriter
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

    private static final class ShortWriter
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

    private static final class IntWriter
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

    private static final class IntToLongWriter
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

    private static final class UnsignedIntToLongWriter
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

    private static final class IntToDoubleWriter
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

    private static final class LongWriter
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

    private static final class FloatWriter
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

    private static final class FloatToDoubleWriter
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

    private static final class DoubleWriter
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

    private static final class IntDecimalWriter
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

    private static final class LongDecimalWriter
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

    private static final class UnsignedLongDecimalWriter
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

    private static final class BinaryDecimalWriter
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

    private static final class StringWriter
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

    private static final class BinaryWriter
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

    private static final class DateWriter
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

    private static final class TimestampWriter
            extends ValueWriter
    {
        private final boolean millis;
        private final CalendarRebase rebase;
        private final String timeZone;
        private final String file;
        private final String column;
        private TimeStampVector vector;

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

    private static final class Int96Writer
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
