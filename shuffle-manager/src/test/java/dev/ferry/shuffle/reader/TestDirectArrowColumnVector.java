package dev.ferry.shuffle.reader;

import dev.ferry.arrow.DirectArrowColumnVector;

import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.execution.arrow.ArrowWriter;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.ArrowUtils;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Every getter of the address-reading vector returns what Spark's ArrowColumnVector returns, nulls included. */
class TestDirectArrowColumnVector
{
    private static final StructType SCHEMA = new StructType()
            .add("b", DataTypes.BooleanType).add("i8", DataTypes.ByteType).add("i16", DataTypes.ShortType).add("i32", DataTypes.IntegerType)
            .add("i64", DataTypes.LongType).add("f32", DataTypes.FloatType).add("f64", DataTypes.DoubleType)
            .add("dec", DataTypes.createDecimalType(12, 2)).add("wide", DataTypes.createDecimalType(30, 4))
            .add("s", DataTypes.StringType).add("bin", DataTypes.BinaryType).add("d", DataTypes.DateType).add("ts", DataTypes.TimestampType);

    @Test
    void gettersMatchSparksArrowColumnVector()
    {
        java.util.Random random = new java.util.Random(3);
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot root = VectorSchemaRoot.create(ArrowUtils.toArrowSchema(SCHEMA, "UTC", false, false), allocator)) {
            ArrowWriter writer = ArrowWriter.create(root);
            int rows = 1500;
            for (int i = 0; i < rows; i++) {
                long value = random.nextLong();
                boolean nulls = i % 7 == 3;
                writer.write(new GenericInternalRow(new Object[] {nulls ? null : value % 2 == 0, nulls ? null : (byte) value, nulls ? null : (short) value,
                        nulls ? null : (int) value, nulls ? null : value, nulls ? null : (float) value / 3, nulls ? null : (double) value / 7,
                        nulls ? null : Decimal.apply(value % 10_000_000_000L, 12, 2), nulls ? null : Decimal.apply(new java.math.BigDecimal(value + ".1234")),
                        nulls ? null : UTF8String.fromString("v" + value), nulls ? null : ("b" + value).getBytes(java.nio.charset.StandardCharsets.UTF_8),
                        nulls ? null : (int) (value % 30000), nulls ? null : value / 1000}));
            }
            writer.finish();
            List<FieldVector> vectors = root.getFieldVectors();
            for (int column = 0; column < vectors.size(); column++) {
                ArrowColumnVector spark = new ArrowColumnVector(vectors.get(column));
                ArrowColumnVector ours = DirectArrowColumnVector.of(vectors.get(column));
                DataType type = SCHEMA.fields()[column].dataType();
                for (int row = 0; row < rows; row++) {
                    String at = SCHEMA.fields()[column].name() + " row " + row;
                    assertEquals(spark.isNullAt(row), ours.isNullAt(row), at);
                    if (spark.isNullAt(row)) {
                        if (type instanceof DecimalType || type == DataTypes.StringType) {
                            assertEquals(null, type == DataTypes.StringType ? ours.getUTF8String(row) : ours.getDecimal(row, 12, 2), at);
                        }
                        continue;
                    }
                    if (type == DataTypes.BooleanType) {
                        assertEquals(spark.getBoolean(row), ours.getBoolean(row), at);
                    }
                    else if (type == DataTypes.ByteType) {
                        assertEquals(spark.getByte(row), ours.getByte(row), at);
                    }
                    else if (type == DataTypes.ShortType) {
                        assertEquals(spark.getShort(row), ours.getShort(row), at);
                    }
                    else if (type == DataTypes.IntegerType || type == DataTypes.DateType) {
                        assertEquals(spark.getInt(row), ours.getInt(row), at);
                    }
                    else if (type == DataTypes.LongType || type == DataTypes.TimestampType) {
                        assertEquals(spark.getLong(row), ours.getLong(row), at);
                    }
                    else if (type == DataTypes.FloatType) {
                        assertEquals(spark.getFloat(row), ours.getFloat(row), at);
                    }
                    else if (type == DataTypes.DoubleType) {
                        assertEquals(spark.getDouble(row), ours.getDouble(row), at);
                    }
                    else if (type instanceof DecimalType) {
                        DecimalType decimal = (DecimalType) type;
                        assertEquals(spark.getDecimal(row, decimal.precision(), decimal.scale()), ours.getDecimal(row, decimal.precision(), decimal.scale()), at);
                    }
                    else if (type == DataTypes.StringType) {
                        assertEquals(spark.getUTF8String(row), ours.getUTF8String(row), at);
                    }
                    else {
                        assertArrayEquals(spark.getBinary(row), ours.getBinary(row), at);
                    }
                }
            }
        }
    }
}
