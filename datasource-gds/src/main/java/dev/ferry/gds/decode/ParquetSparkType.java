package dev.ferry.gds.decode;

import dev.ferry.gds.parquet.CalendarRebase;
import dev.ferry.gds.parquet.UnsupportedParquetException;
import org.apache.parquet.schema.LogicalTypeAnnotation.DateLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DecimalLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.IntLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimestampLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.PrimitiveType;
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

import java.util.Optional;

/**
 * The one table of Parquet and Spark type pairs the decoder reads: {@link #resolve} maps a leaf's
 * physical and logical type and the Spark type it is read as to a constant, and each constant gives
 * both the general path's {@link ValueWriter} and, when its values are stored as Arrow holds them
 * (no unsigned widening, no unit change, no calendar rebase), the flat path's {@link FlatLayout}.
 * A pair added here must say both, so the choice and the writers cannot disagree. The pairs are the
 * ones Spark's schema conversion produces (plus the widenings int to long and double, float to
 * double); anything else is refused naming the file and column, never converted by guess.
 */
enum ParquetSparkType
{
    /** Any physical type read as NullType (Spark's reading of the UNKNOWN, always-null, logical type). */
    NULL {
        @Override
        ValueWriter writer(PrimitiveType parquet, DataType spark, DatetimeRules rules, String file, String column)
        {
            return new ValueWriters.NullWriter();
        }

        @Override
        Optional<FlatLayout> flatLayout(PrimitiveType parquet, DataType spark, DatetimeRules rules)
        {
            return Optional.empty();
        }
    },
    BOOLEAN_AS_BOOLEAN {
        @Override
        ValueWriter writer(PrimitiveType parquet, DataType spark, DatetimeRules rules, String file, String column)
        {
            return new ValueWriters.BooleanWriter();
        }

        @Override
        Optional<FlatLayout> flatLayout(PrimitiveType parquet, DataType spark, DatetimeRules rules)
        {
            return Optional.of(FlatLayout.BOOL);
        }
    },
    /** INT32 (plain or INT(8/16)) read as byte. */
    INT32_AS_BYTE {
        @Override
        ValueWriter writer(PrimitiveType parquet, DataType spark, DatetimeRules rules, String file, String column)
        {
            return new ValueWriters.ByteWriter();
        }

        @Override
        Optional<FlatLayout> flatLayout(PrimitiveType parquet, DataType spark, DatetimeRules rules)
        {
            return Optional.empty();
        }
    },
    /** INT32 (plain, INT(8/16), UINT_8) read as short. */
    INT32_AS_SHORT {
        @Override
        ValueWriter writer(PrimitiveType parquet, DataType spark, DatetimeRules rules, String file, String column)
        {
            return new ValueWriters.ShortWriter();
        }

        @Override
        Optional<FlatLayout> flatLayout(PrimitiveType parquet, DataType spark, DatetimeRules rules)
        {
            return Optional.empty();
        }
    },
    /** INT32 (plain, signed INT, UINT_8/16) read as int; only plain and INT(32, signed) values are stored as they are read. */
    INT32_AS_INT {
        @Override
        ValueWriter writer(PrimitiveType parquet, DataType spark, DatetimeRules rules, String file, String column)
        {
            return new ValueWriters.IntWriter();
        }

        @Override
        Optional<FlatLayout> flatLayout(PrimitiveType parquet, DataType spark, DatetimeRules rules)
        {
            LogicalTypeAnnotation logical = logical(parquet);
            return logical == null || signed(logical, 32) ? Optional.of(FlatLayout.FIXED4) : Optional.empty();
        }
    },
    INT32_AS_LONG {
        @Override
        ValueWriter writer(PrimitiveType parquet, DataType spark, DatetimeRules rules, String file, String column)
        {
            return new ValueWriters.IntToLongWriter();
        }

        @Override
        Optional<FlatLayout> flatLayout(PrimitiveType parquet, DataType spark, DatetimeRules rules)
        {
            return Optional.empty();
        }
    },
    /** UINT_32 read as long: widened without sign extension. */
    UINT32_AS_LONG {
        @Override
        ValueWriter writer(PrimitiveType parquet, DataType spark, DatetimeRules rules, String file, String column)
        {
            return new ValueWriters.UnsignedIntToLongWriter();
        }

        @Override
        Optional<FlatLayout> flatLayout(PrimitiveType parquet, DataType spark, DatetimeRules rules)
        {
            return Optional.empty();
        }
    },
    INT32_AS_DOUBLE {
        @Override
        ValueWriter writer(PrimitiveType parquet, DataType spark, DatetimeRules rules, String file, String column)
        {
            return new ValueWriters.IntToDoubleWriter();
        }

        @Override
        Optional<FlatLayout> flatLayout(PrimitiveType parquet, DataType spark, DatetimeRules rules)
        {
            return Optional.empty();
        }
    },
    /** DATE read as date; stored as it is read unless the file's dates need a calendar rebase. */
    DATE_AS_DATE {
        @Override
        ValueWriter writer(PrimitiveType parquet, DataType spark, DatetimeRules rules, String file, String column)
        {
            return new ValueWriters.DateWriter(rules.datetime(), file, column);
        }

        @Override
        Optional<FlatLayout> flatLayout(PrimitiveType parquet, DataType spark, DatetimeRules rules)
        {
            return rules.datetime() == CalendarRebase.CORRECTED ? Optional.of(FlatLayout.FIXED4) : Optional.empty();
        }
    },
    /** DECIMAL on INT32 read as a decimal of the same scale and no smaller precision. */
    INT32_DECIMAL_AS_DECIMAL {
        @Override
        ValueWriter writer(PrimitiveType parquet, DataType spark, DatetimeRules rules, String file, String column)
        {
            return new ValueWriters.IntDecimalWriter();
        }

        @Override
        Optional<FlatLayout> flatLayout(PrimitiveType parquet, DataType spark, DatetimeRules rules)
        {
            return Optional.of(FlatLayout.DECIMAL);
        }
    },
    /** INT64 (plain or signed INT) read as long, and TIMESTAMP(NANOS) read as its raw nanoseconds (nanosAsLong). */
    INT64_AS_LONG {
        @Override
        ValueWriter writer(PrimitiveType parquet, DataType spark, DatetimeRules rules, String file, String column)
        {
            return new ValueWriters.LongWriter();
        }

        @Override
        Optional<FlatLayout> flatLayout(PrimitiveType parquet, DataType spark, DatetimeRules rules)
        {
            LogicalTypeAnnotation logical = logical(parquet);
            return logical == null || signed(logical, 64) ? Optional.of(FlatLayout.FIXED8) : Optional.empty();
        }
    },
    /** TIMESTAMP(MILLIS or MICROS) read as timestamp or timestamp_ntz; stored as read for micros needing no rebase. */
    TIMESTAMP_AS_TIMESTAMP {
        @Override
        ValueWriter writer(PrimitiveType parquet, DataType spark, DatetimeRules rules, String file, String column)
        {
            // Only TimestampType (with a zone) is ever rebased.
            TimeUnit unit = ((TimestampLogicalTypeAnnotation) parquet.getLogicalTypeAnnotation()).getUnit();
            return new ValueWriters.TimestampWriter(unit == TimeUnit.MILLIS, spark instanceof TimestampType ? rules.datetime() : CalendarRebase.CORRECTED,
                    rules.rebaseTimeZone(), file, column);
        }

        @Override
        Optional<FlatLayout> flatLayout(PrimitiveType parquet, DataType spark, DatetimeRules rules)
        {
            TimeUnit unit = ((TimestampLogicalTypeAnnotation) parquet.getLogicalTypeAnnotation()).getUnit();
            boolean asStored = spark instanceof TimestampNTZType || rules.datetime() == CalendarRebase.CORRECTED;
            return unit == TimeUnit.MICROS && asStored ? Optional.of(FlatLayout.FIXED8) : Optional.empty();
        }
    },
    /** INT(64, unsigned) read as decimal(20+, 0). */
    UINT64_AS_DECIMAL {
        @Override
        ValueWriter writer(PrimitiveType parquet, DataType spark, DatetimeRules rules, String file, String column)
        {
            return new ValueWriters.UnsignedLongDecimalWriter();
        }

        @Override
        Optional<FlatLayout> flatLayout(PrimitiveType parquet, DataType spark, DatetimeRules rules)
        {
            return Optional.empty();
        }
    },
    /** DECIMAL on INT64 read as a decimal of the same scale and no smaller precision. */
    INT64_DECIMAL_AS_DECIMAL {
        @Override
        ValueWriter writer(PrimitiveType parquet, DataType spark, DatetimeRules rules, String file, String column)
        {
            return new ValueWriters.LongDecimalWriter();
        }

        @Override
        Optional<FlatLayout> flatLayout(PrimitiveType parquet, DataType spark, DatetimeRules rules)
        {
            return Optional.of(FlatLayout.DECIMAL);
        }
    },
    /** INT96 read as timestamp; stored as read (converted to micros) when Spark would not rebase it. */
    INT96_AS_TIMESTAMP {
        @Override
        ValueWriter writer(PrimitiveType parquet, DataType spark, DatetimeRules rules, String file, String column)
        {
            return new ValueWriters.Int96Writer(rules.int96(), rules.rebaseTimeZone(), file, column);
        }

        @Override
        Optional<FlatLayout> flatLayout(PrimitiveType parquet, DataType spark, DatetimeRules rules)
        {
            // Zone shifts are refused by resolve(); legacy files take the general path.
            return rules.int96() == CalendarRebase.CORRECTED && !rules.int96ZoneConversion() ? Optional.of(FlatLayout.INT96) : Optional.empty();
        }
    },
    FLOAT_AS_FLOAT {
        @Override
        ValueWriter writer(PrimitiveType parquet, DataType spark, DatetimeRules rules, String file, String column)
        {
            return new ValueWriters.FloatWriter();
        }

        @Override
        Optional<FlatLayout> flatLayout(PrimitiveType parquet, DataType spark, DatetimeRules rules)
        {
            return Optional.of(FlatLayout.FIXED4);
        }
    },
    FLOAT_AS_DOUBLE {
        @Override
        ValueWriter writer(PrimitiveType parquet, DataType spark, DatetimeRules rules, String file, String column)
        {
            return new ValueWriters.FloatToDoubleWriter();
        }

        @Override
        Optional<FlatLayout> flatLayout(PrimitiveType parquet, DataType spark, DatetimeRules rules)
        {
            return Optional.empty();
        }
    },
    DOUBLE_AS_DOUBLE {
        @Override
        ValueWriter writer(PrimitiveType parquet, DataType spark, DatetimeRules rules, String file, String column)
        {
            return new ValueWriters.DoubleWriter();
        }

        @Override
        Optional<FlatLayout> flatLayout(PrimitiveType parquet, DataType spark, DatetimeRules rules)
        {
            return Optional.of(FlatLayout.FIXED8);
        }
    },
    /** DECIMAL on BINARY or FIXED_LEN_BYTE_ARRAY (big-endian two's complement) read as decimal. */
    BYTES_DECIMAL_AS_DECIMAL {
        @Override
        ValueWriter writer(PrimitiveType parquet, DataType spark, DatetimeRules rules, String file, String column)
        {
            return new ValueWriters.BinaryDecimalWriter(file, column);
        }

        @Override
        Optional<FlatLayout> flatLayout(PrimitiveType parquet, DataType spark, DatetimeRules rules)
        {
            return Optional.empty();
        }
    },
    /** BINARY (any logical type but DECIMAL) read as string. */
    BINARY_AS_STRING {
        @Override
        ValueWriter writer(PrimitiveType parquet, DataType spark, DatetimeRules rules, String file, String column)
        {
            return new ValueWriters.StringWriter();
        }

        @Override
        Optional<FlatLayout> flatLayout(PrimitiveType parquet, DataType spark, DatetimeRules rules)
        {
            return Optional.of(FlatLayout.VARBYTES);
        }
    },
    /** BINARY, or FIXED_LEN_BYTE_ARRAY without a logical type, read as binary; only BINARY takes the flat path. */
    BYTES_AS_BINARY {
        @Override
        ValueWriter writer(PrimitiveType parquet, DataType spark, DatetimeRules rules, String file, String column)
        {
            return new ValueWriters.BinaryWriter();
        }

        @Override
        Optional<FlatLayout> flatLayout(PrimitiveType parquet, DataType spark, DatetimeRules rules)
        {
            return parquet.getPrimitiveTypeName() == PrimitiveTypeName.BINARY ? Optional.of(FlatLayout.VARBYTES) : Optional.empty();
        }
    };

    /** The general path's writer: moves each value from a parquet-mr column reader into the Arrow vector, converting as Spark does. */
    abstract ValueWriter writer(PrimitiveType parquet, DataType spark, DatetimeRules rules, String file, String column);

    /** The flat path's layout, when this pair's values (under these rules) are stored as Arrow holds them. */
    abstract Optional<FlatLayout> flatLayout(PrimitiveType parquet, DataType spark, DatetimeRules rules);

    /**
     * The pair a Parquet leaf read as {@code spark} is, or an {@link UnsupportedParquetException}
     * naming the file, the column and why.
     */
    static ParquetSparkType resolve(PrimitiveType parquet, DataType spark, DatetimeRules rules, String file, String column)
    {
        LogicalTypeAnnotation logical = logical(parquet);
        if (spark instanceof NullType) {
            // Spark reads the UNKNOWN (always null) logical type as NullType; there is no value to move.
            return NULL;
        }
        switch (parquet.getPrimitiveTypeName()) {
            case BOOLEAN:
                if (spark instanceof BooleanType) {
                    return BOOLEAN_AS_BOOLEAN;
                }
                break;
            case INT32:
                return int32(logical, spark, file, column, parquet);
            case INT64:
                return int64(logical, spark, file, column, parquet);
            case INT96:
                if (rules.int96ZoneConversion()) {
                    throw new UnsupportedParquetException(file, column, "spark.sql.parquet.int96TimestampConversion=true (shifting INT96 values "
                            + "written by other tools between time zones) is not supported yet");
                }
                if (spark instanceof TimestampType) {
                    return INT96_AS_TIMESTAMP;
                }
                break;
            case FLOAT:
                if (spark instanceof FloatType) {
                    return FLOAT_AS_FLOAT;
                }
                if (spark instanceof DoubleType) {
                    return FLOAT_AS_DOUBLE;
                }
                break;
            case DOUBLE:
                if (spark instanceof DoubleType) {
                    return DOUBLE_AS_DOUBLE;
                }
                break;
            case BINARY:
            case FIXED_LEN_BYTE_ARRAY:
                return bytes(logical, spark, file, column, parquet);
        }
        throw unsupported(parquet, spark, file, column);
    }

    // UNKNOWN says every value is null; Spark then reads the column by its physical type.
    private static LogicalTypeAnnotation logical(PrimitiveType parquet)
    {
        LogicalTypeAnnotation logical = parquet.getLogicalTypeAnnotation();
        return logical instanceof LogicalTypeAnnotation.UnknownLogicalTypeAnnotation ? null : logical;
    }

    private static ParquetSparkType int32(LogicalTypeAnnotation logical, DataType spark, String file, String column, PrimitiveType parquet)
    {
        if (logical instanceof DecimalLogicalTypeAnnotation) {
            checkDecimal((DecimalLogicalTypeAnnotation) logical, spark, parquet, file, column);
            return INT32_DECIMAL_AS_DECIMAL;
        }
        if (logical instanceof DateLogicalTypeAnnotation) {
            if (spark instanceof DateType) {
                return DATE_AS_DATE;
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
            return unsigned ? UINT32_AS_LONG : INT32_AS_LONG;
        }
        if (!unsigned || ((IntLogicalTypeAnnotation) logical).getBitWidth() < 32) {
            // Spark reads UINT_8 as short and UINT_16 as int; their values fit as they are.
            if (spark instanceof IntegerType) {
                return INT32_AS_INT;
            }
            if (spark instanceof ShortType) {
                return INT32_AS_SHORT;
            }
            if (spark instanceof ByteType) {
                return INT32_AS_BYTE;
            }
            if (spark instanceof DoubleType && !unsigned) {
                return INT32_AS_DOUBLE;
            }
        }
        throw unsupported(parquet, spark, file, column);
    }

    private static ParquetSparkType int64(LogicalTypeAnnotation logical, DataType spark, String file, String column, PrimitiveType parquet)
    {
        if (logical instanceof DecimalLogicalTypeAnnotation) {
            checkDecimal((DecimalLogicalTypeAnnotation) logical, spark, parquet, file, column);
            return INT64_DECIMAL_AS_DECIMAL;
        }
        if (logical instanceof TimestampLogicalTypeAnnotation) {
            TimeUnit unit = ((TimestampLogicalTypeAnnotation) logical).getUnit();
            if (unit == TimeUnit.NANOS && spark instanceof LongType) {
                // spark.sql.legacy.parquet.nanosAsLong: the raw nanoseconds.
                return INT64_AS_LONG;
            }
            if ((spark instanceof TimestampType || spark instanceof TimestampNTZType) && unit != TimeUnit.NANOS) {
                return TIMESTAMP_AS_TIMESTAMP;
            }
            throw unsupported(parquet, spark, file, column);
        }
        if (logical instanceof IntLogicalTypeAnnotation && !((IntLogicalTypeAnnotation) logical).isSigned()) {
            if (spark instanceof DecimalType && ((DecimalType) spark).scale() == 0 && ((DecimalType) spark).precision() >= 20) {
                return UINT64_AS_DECIMAL;
            }
            throw unsupported(parquet, spark, file, column);
        }
        if (logical != null && !(logical instanceof IntLogicalTypeAnnotation)) {
            throw unsupported(parquet, spark, file, column);
        }
        if (spark instanceof LongType) {
            return INT64_AS_LONG;
        }
        throw unsupported(parquet, spark, file, column);
    }

    private static ParquetSparkType bytes(LogicalTypeAnnotation logical, DataType spark, String file, String column, PrimitiveType parquet)
    {
        if (logical instanceof DecimalLogicalTypeAnnotation) {
            checkDecimal((DecimalLogicalTypeAnnotation) logical, spark, parquet, file, column);
            return BYTES_DECIMAL_AS_DECIMAL;
        }
        boolean fixed = parquet.getPrimitiveTypeName() == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY;
        if (spark instanceof StringType && !fixed) {
            return BINARY_AS_STRING;
        }
        if (spark instanceof BinaryType && (logical == null || !fixed)) {
            return BYTES_AS_BINARY;
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

    private static boolean signed(LogicalTypeAnnotation logical, int bitWidth)
    {
        return logical instanceof IntLogicalTypeAnnotation
                && ((IntLogicalTypeAnnotation) logical).isSigned()
                && ((IntLogicalTypeAnnotation) logical).getBitWidth() == bitWidth;
    }
}
