package dev.ferry.gds.decode;

import dev.ferry.gds.plan.CalendarRebase;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DateLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DecimalLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.IntLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimestampLogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

import java.util.Optional;

/**
 * The Parquet and Spark type pairs the flat fast path takes: those whose values are stored as they
 * are (no unsigned widening, no unit change, no calendar rebase). Everything else takes the general
 * path in {@link ValueWriters}, which these pairs agree with.
 */
final class FlatTargets
{
    private FlatTargets() {}

    static Optional<FlatTarget> choose(PrimitiveType parquet, DataType spark, DatetimeRules rules)
    {
        LogicalTypeAnnotation logical = parquet.getLogicalTypeAnnotation();
        switch (parquet.getPrimitiveTypeName()) {
            case INT32:
                if (spark instanceof IntegerType && (logical == null || signed(logical, 32))) {
                    return Optional.of(new FlatTarget.Ints());
                }
                if (spark instanceof DateType && logical instanceof DateLogicalTypeAnnotation && rules.datetime() == CalendarRebase.CORRECTED) {
                    return Optional.of(new FlatTarget.Dates());
                }
                return decimal(logical, spark);
            case INT64:
                if (spark instanceof LongType && (logical == null || signed(logical, 64))) {
                    return Optional.of(new FlatTarget.Longs());
                }
                if (logical instanceof TimestampLogicalTypeAnnotation && ((TimestampLogicalTypeAnnotation) logical).getUnit() == TimeUnit.MICROS
                        && (spark instanceof TimestampNTZType || (spark instanceof TimestampType && rules.datetime() == CalendarRebase.CORRECTED))) {
                    return Optional.of(new FlatTarget.Timestamps());
                }
                return decimal(logical, spark);
            case FLOAT:
                return spark instanceof FloatType ? Optional.of(new FlatTarget.Floats()) : Optional.empty();
            case DOUBLE:
                return spark instanceof DoubleType ? Optional.of(new FlatTarget.Doubles()) : Optional.empty();
            case BINARY:
                if (logical instanceof DecimalLogicalTypeAnnotation) {
                    return Optional.empty();
                }
                if (spark instanceof StringType) {
                    return Optional.of(new FlatTarget.Strings());
                }
                return spark instanceof BinaryType ? Optional.of(new FlatTarget.Binaries()) : Optional.empty();
            case BOOLEAN:
                return spark instanceof BooleanType ? Optional.of(new FlatTarget.Booleans()) : Optional.empty();
            case INT96:
                // Spark's own INT96 files need no rebase (CORRECTED); legacy ones and zone shifts take the general path.
                return spark instanceof TimestampType && rules.int96() == CalendarRebase.CORRECTED && !rules.int96ZoneConversion()
                        ? Optional.of(new FlatTarget.Int96Timestamps())
                        : Optional.empty();
            case FIXED_LEN_BYTE_ARRAY:
                return Optional.empty();
        }
        return Optional.empty();
    }

    private static Optional<FlatTarget> decimal(LogicalTypeAnnotation logical, DataType spark)
    {
        if (logical instanceof DecimalLogicalTypeAnnotation && spark instanceof DecimalType) {
            DecimalLogicalTypeAnnotation decimal = (DecimalLogicalTypeAnnotation) logical;
            DecimalType target = (DecimalType) spark;
            if (target.scale() == decimal.getScale() && target.precision() >= decimal.getPrecision()) {
                return Optional.of(new FlatTarget.Decimals());
            }
        }
        return Optional.empty();
    }

    private static boolean signed(LogicalTypeAnnotation logical, int bitWidth)
    {
        return logical instanceof IntLogicalTypeAnnotation
                && ((IntLogicalTypeAnnotation) logical).isSigned()
                && ((IntLogicalTypeAnnotation) logical).getBitWidth() == bitWidth;
    }
}
