package dev.ferry.gds.repartition;

import dev.ferry.device.partition.PartitionColumn;
import dev.ferry.device.partition.PartitionKeyKind;
import dev.ferry.gds.device.DeviceColumn;
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
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

import java.util.Optional;

/**
 * The one table of how a device batch's Spark types lie in Arrow (what the gather moves) and how
 * Spark's {@code Murmur3Hash} hashes a key of that type (what the hash kernels compute).
 */
final class RepartitionTypes
{
    private RepartitionTypes() {}

    /** Bytes per value of a fixed-width Arrow column, 0 for bits and strings; empty for a type device batches do not hold flat. */
    static Optional<PartitionColumn.Layout> layout(DataType type)
    {
        if (type instanceof BooleanType) {
            return Optional.of(PartitionColumn.Layout.BITS);
        }
        if (type instanceof StringType || type instanceof BinaryType) {
            return Optional.of(PartitionColumn.Layout.BYTES);
        }
        return width(type) > 0 ? Optional.of(PartitionColumn.Layout.FIXED) : Optional.empty();
    }

    static int width(DataType type)
    {
        if (type instanceof ByteType) {
            return 1;
        }
        if (type instanceof ShortType) {
            return 2;
        }
        if (type instanceof IntegerType || type instanceof DateType || type instanceof FloatType) {
            return 4;
        }
        if (type instanceof LongType || type instanceof TimestampType || type instanceof TimestampNTZType || type instanceof DoubleType) {
            return 8;
        }
        if (type instanceof DecimalType) {
            return 16;
        }
        return 0;
    }

    /** How Spark hashes a key of {@code type}; empty for a key type the kernels do not hash. */
    static Optional<PartitionKeyKind> keyKind(DataType type)
    {
        if (type instanceof IntegerType || type instanceof DateType) {
            return Optional.of(PartitionKeyKind.INT32);
        }
        if (type instanceof LongType || type instanceof TimestampType || type instanceof TimestampNTZType) {
            return Optional.of(PartitionKeyKind.INT64);
        }
        if (type instanceof FloatType) {
            return Optional.of(PartitionKeyKind.FLOAT32);
        }
        if (type instanceof DoubleType) {
            return Optional.of(PartitionKeyKind.FLOAT64);
        }
        if (type instanceof BooleanType) {
            return Optional.of(PartitionKeyKind.BOOLEAN);
        }
        if (type instanceof DecimalType decimal) {
            // Spark: precision <= Decimal.MAX_LONG_DIGITS (18) hashes the unscaled long, larger the BigInteger's bytes.
            return Optional.of(decimal.precision() <= 18 ? PartitionKeyKind.DECIMAL_LONG : PartitionKeyKind.DECIMAL_BYTES);
        }
        // Only binary-collation strings hash their bytes; a collated string hashes its collation key.
        if (type instanceof StringType string && string.collationId() == 0) {
            return Optional.of(PartitionKeyKind.BYTES);
        }
        return Optional.empty();
    }

    /** {@code column}'s device buffers as the partition kernels take them. */
    static PartitionColumn partitionColumn(DeviceColumn column)
    {
        DataType type = column.type();
        PartitionColumn.Layout layout = layout(type).orElseThrow(() -> new IllegalArgumentException(
                "column " + column.name() + " has type " + type.simpleString() + ", which device batches do not repartition (flat fixed-width, boolean, string and binary columns only)"));
        int expected = layout == PartitionColumn.Layout.BYTES ? 3 : 2;
        if (column.buffers().size() != expected) {
            throw new IllegalArgumentException("column " + column.name() + " (" + type.simpleString() + ") has " + column.buffers().size() + " device buffers, expected " + expected);
        }
        return new PartitionColumn(column.name(), layout, width(type), column.buffers().get(0), layout == PartitionColumn.Layout.BYTES ? column.buffers().get(1) : null,
                column.buffers().get(expected - 1), column.nullCount());
    }
}
