package dev.ferry.shuffle.format;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/** Random rows of every type Ferry shuffles, with nulls at every level, as UnsafeRows (byte-comparable). */
final class TestingRows
{
    static final StructType ALL_TYPES = new StructType()
            .add("b", DataTypes.BooleanType)
            .add("i8", DataTypes.ByteType)
            .add("i16", DataTypes.ShortType)
            .add("i32", DataTypes.IntegerType)
            .add("i64", DataTypes.LongType)
            .add("f32", DataTypes.FloatType)
            .add("f64", DataTypes.DoubleType)
            .add("dec_small", DataTypes.createDecimalType(10, 3))
            .add("dec_big", DataTypes.createDecimalType(38, 6))
            .add("str", DataTypes.StringType)
            .add("bin", DataTypes.BinaryType)
            .add("dt", DataTypes.DateType)
            .add("ts", DataTypes.TimestampType)
            .add("ntz", DataTypes.TimestampNTZType)
            .add("arr", DataTypes.createArrayType(DataTypes.LongType, true))
            .add("st", new StructType().add("a", DataTypes.IntegerType).add("b", DataTypes.StringType).add("c", DataTypes.createArrayType(new StructType().add("x", DataTypes.LongType))))
            .add("m", DataTypes.createMapType(DataTypes.StringType, DataTypes.LongType, true))
            .add("nested", DataTypes.createArrayType(DataTypes.createMapType(DataTypes.StringType, DataTypes.createArrayType(DataTypes.LongType))))
            .add("nul", DataTypes.NullType)
            .add("ym", DataTypes.createYearMonthIntervalType())
            .add("dtm", DataTypes.createDayTimeIntervalType());

    private TestingRows() {}

    static List<UnsafeRow> random(StructType schema, int count, long seed)
    {
        Random random = new Random(seed);
        UnsafeProjection projection = UnsafeProjection.create(schema);
        List<UnsafeRow> rows = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            GenericInternalRow row = new GenericInternalRow(schema.fields().length);
            for (int column = 0; column < schema.fields().length; column++) {
                row.update(column, value(schema.fields()[column].dataType(), random, 0));
            }
            rows.add(projection.apply(row).copy());
        }
        return rows;
    }

    static UnsafeRow unsafe(StructType schema, InternalRow row)
    {
        return UnsafeProjection.create(schema).apply(row).copy();
    }

    private static Object value(DataType type, Random random, int depth)
    {
        if (type == DataTypes.NullType || random.nextInt(6) == 0) {
            return null;
        }
        if (type == DataTypes.BooleanType) {
            return random.nextBoolean();
        }
        if (type == DataTypes.ByteType) {
            return (byte) random.nextInt();
        }
        if (type == DataTypes.ShortType) {
            return (short) random.nextInt();
        }
        if (type == DataTypes.IntegerType || type == DataTypes.DateType || type.equals(DataTypes.createYearMonthIntervalType())) {
            return random.nextInt(100000);
        }
        if (type == DataTypes.LongType || type == DataTypes.TimestampType || type == DataTypes.TimestampNTZType || type.equals(DataTypes.createDayTimeIntervalType())) {
            return random.nextLong() / 4;
        }
        if (type == DataTypes.FloatType) {
            return random.nextInt(20) == 0 ? Float.NaN : random.nextFloat() * 1000 - 500;
        }
        if (type == DataTypes.DoubleType) {
            return random.nextInt(20) == 0 ? -0.0d : random.nextGaussian() * 1e6;
        }
        if (type instanceof DecimalType) {
            DecimalType decimal = (DecimalType) type;
            if (decimal.precision() > 18) {
                // Every width from one byte to the full 16 of a 38-digit value, both signs, and the extremes.
                java.math.BigInteger limit = java.math.BigInteger.TEN.pow(decimal.precision()).subtract(java.math.BigInteger.ONE);
                java.math.BigInteger unscaled = switch (random.nextInt(8)) {
                    case 0 -> limit;
                    case 1 -> limit.negate();
                    default -> new java.math.BigInteger(1 + random.nextInt(limit.bitLength()), random).mod(limit);
                };
                return Decimal.apply(new java.math.BigDecimal(random.nextBoolean() ? unscaled : unscaled.negate(), decimal.scale()));
            }
            long unscaled = random.nextLong() % (long) Math.pow(10, decimal.precision());
            return Decimal.apply(new java.math.BigDecimal(java.math.BigInteger.valueOf(unscaled), decimal.scale()));
        }
        if (type == DataTypes.StringType) {
            StringBuilder text = new StringBuilder();
            int length = random.nextInt(12);
            for (int i = 0; i < length; i++) {
                text.append(random.nextInt(10) == 0 ? 'é' : (char) ('a' + random.nextInt(26)));
            }
            return UTF8String.fromString(text.toString());
        }
        if (type == DataTypes.BinaryType) {
            byte[] bytes = new byte[random.nextInt(9)];
            random.nextBytes(bytes);
            return bytes;
        }
        if (type instanceof ArrayType) {
            Object[] values = new Object[depth > 2 ? 0 : random.nextInt(4)];
            for (int i = 0; i < values.length; i++) {
                values[i] = value(((ArrayType) type).elementType(), random, depth + 1);
            }
            return new GenericArrayData(values);
        }
        if (type instanceof MapType) {
            MapType map = (MapType) type;
            int size = depth > 2 ? 0 : random.nextInt(3);
            Object[] keys = new Object[size];
            Object[] values = new Object[size];
            for (int i = 0; i < size; i++) {
                keys[i] = UTF8String.fromString("k" + i + "-" + random.nextInt(1000));
                values[i] = value(map.valueType(), random, depth + 1);
            }
            return new ArrayBasedMapData(new GenericArrayData(keys), new GenericArrayData(values));
        }
        if (type instanceof StructType) {
            StructField[] fields = ((StructType) type).fields();
            GenericInternalRow struct = new GenericInternalRow(fields.length);
            for (int i = 0; i < fields.length; i++) {
                struct.update(i, value(fields[i].dataType(), random, depth + 1));
            }
            return struct;
        }
        throw new IllegalArgumentException("No generator for " + type + " " + new String(new byte[0], StandardCharsets.UTF_8));
    }
}
