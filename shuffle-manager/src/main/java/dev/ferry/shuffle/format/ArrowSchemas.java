package dev.ferry.shuffle.format;

import java.util.Optional;

import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.CalendarIntervalType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DayTimeIntervalType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.types.VariantType;
import org.apache.spark.sql.types.YearMonthIntervalType;
import org.apache.spark.sql.util.ArrowUtils;

/** Which Spark types the Arrow shuffle carries, and the one Spark-to-Arrow schema mapping both sides use. */
public final class ArrowSchemas
{
    // Timestamps travel as UTC microseconds whatever the session zone; the zone only labels the Arrow type.
    private static final String TIME_ZONE = "UTC";

    private ArrowSchemas() {}

    /** Spark's own mapping (the one {@code ArrowColumnVector} reads back); duplicate column names are allowed. */
    public static Schema toArrow(StructType schema)
    {
        return ArrowUtils.toArrowSchema(schema, TIME_ZONE, false, false);
    }

    /** Empty when every column can be shuffled as Arrow; otherwise why not, naming the column. */
    public static Optional<String> unsupportedReason(StructType schema)
    {
        for (StructField field : schema.fields()) {
            Optional<String> reason = unsupported(field.dataType());
            if (reason.isPresent()) {
                return Optional.of("column " + field.name() + ": " + reason.get());
            }
        }
        return Optional.empty();
    }

    private static Optional<String> unsupported(DataType type)
    {
        if (type instanceof BooleanType || type instanceof ByteType || type instanceof ShortType || type instanceof IntegerType
                || type instanceof LongType || type instanceof FloatType || type instanceof DoubleType || type instanceof DecimalType
                || type instanceof BinaryType || type instanceof DateType || type instanceof TimestampType
                || type instanceof TimestampNTZType || type instanceof NullType || type instanceof YearMonthIntervalType
                || type instanceof DayTimeIntervalType || type instanceof CalendarIntervalType || type instanceof VariantType) {
            // CALENDAR INTERVAL travels as Arrow's month-day-nano interval, VARIANT as Spark's struct of
            // its value and metadata bytes: Spark's own Arrow mapping, writers and accessors for both.
            return Optional.empty();
        }
        if (type instanceof StringType) {
            // Any collation: the bytes travel as they are, and rows reach their partition through
            // Spark's own partition-id expression, which hashes collated strings by their collation.
            return Optional.empty();
        }
        if (type instanceof ArrayType) {
            return unsupported(((ArrayType) type).elementType());
        }
        if (type instanceof MapType) {
            MapType map = (MapType) type;
            Optional<String> key = unsupported(map.keyType());
            return key.isPresent() ? key : unsupported(map.valueType());
        }
        if (type instanceof StructType) {
            for (StructField field : ((StructType) type).fields()) {
                Optional<String> reason = unsupported(field.dataType());
                if (reason.isPresent()) {
                    return reason;
                }
            }
            return Optional.empty();
        }
        return Optional.of("type " + type.simpleString() + " has no Arrow shuffle encoding");
    }
}
