package dev.ferry.gds.aggregate;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** CASE WHEN tests: SQL's answer per row (a null never equal, NOT of it still not true), on Arrow and on Spark's vectors alike. */
class ValueTestMatcherTest
{
    private static final StructField MODE = new StructField("mode", DataTypes.StringType, true, Metadata.empty());
    private static final StructField N = new StructField("n", DataTypes.IntegerType, true, Metadata.empty());
    private static final StructField PRICE = new StructField("price", DataTypes.createDecimalType(10, 2), true, Metadata.empty());
    private static final String[] MODES = {"AIR", null, "", "AIRX", "air", "AIR", "中文", null, "AI"};

    @Test
    void stringsCompareBytesOnArrowBuffersAsOnSparksVectors()
    {
        assertStrings(new AggregateInput.ValueTest(MODE, List.of(utf8("AIR")), false),
                new boolean[] {true, false, false, false, false, true, false, false, false});
        assertStrings(new AggregateInput.ValueTest(MODE, List.of(utf8("")), false),
                new boolean[] {false, false, true, false, false, false, false, false, false});
        assertStrings(new AggregateInput.ValueTest(MODE, List.of(utf8("AIR"), utf8("中文"), utf8("no such")), false),
                new boolean[] {true, false, false, false, false, true, true, false, false});
        assertStrings(new AggregateInput.ValueTest(MODE, List.of(utf8("AIR")), true),
                new boolean[] {false, false, true, true, true, false, true, false, true});
    }

    @Test
    void integersAndDecimalsCompareAsLongsAndNullsNeverMatch()
    {
        OnHeapColumnVector ints = new OnHeapColumnVector(5, DataTypes.IntegerType);
        int[] values = {7, 0, -7, 7, 3};
        for (int row = 0; row < values.length; row++) {
            ints.putInt(row, values[row]);
        }
        ints.putNull(3);
        assertArrayEquals(new boolean[] {true, false, false, false, false}, match(new AggregateInput.ValueTest(N, List.of(7), false), ints, 5));
        assertArrayEquals(new boolean[] {false, true, true, false, true}, match(new AggregateInput.ValueTest(N, List.of(7), true), ints, 5));
        assertArrayEquals(new boolean[] {true, false, true, false, true}, match(new AggregateInput.ValueTest(N, List.of(3, 7, -7), false), ints, 5));

        OnHeapColumnVector prices = new OnHeapColumnVector(3, PRICE.dataType());
        prices.putLong(0, 1234);
        prices.putLong(1, -1234);
        prices.putNull(2);
        Decimal literal = Decimal.apply(new BigDecimal("12.34"), 10, 2);
        assertArrayEquals(new boolean[] {true, false, false}, match(new AggregateInput.ValueTest(PRICE, List.of(literal), false), prices, 3));
    }

    @Test
    void caseWhenSurvivesJavaSerializationAndReadsAsSql()
            throws IOException, ClassNotFoundException
    {
        AggregateInput.CaseWhen caseWhen = new AggregateInput.CaseWhen(List.of(
                new AggregateInput.ValueTest(MODE, List.of(utf8("it's")), false),
                new AggregateInput.ValueTest(MODE, List.of(utf8("A"), utf8("B")), true),
                new AggregateInput.ValueTest(PRICE, List.of(Decimal.apply(new BigDecimal("1.50"), 10, 2)), false)),
                List.of(1L, 2L, 3L), null, DataTypes.IntegerType);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(caseWhen);
        }
        Object copy;
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            copy = in.readObject();
        }
        assertEquals(caseWhen, copy);
        assertEquals("CASE WHEN mode = 'it''s' THEN 1 WHEN NOT (mode IN ('A', 'B')) THEN 2 WHEN price = 1.50 THEN 3 ELSE null END", copy.toString());
    }

    private static void assertStrings(AggregateInput.ValueTest test, boolean[] expected)
    {
        OnHeapColumnVector spark = new OnHeapColumnVector(MODES.length, DataTypes.StringType);
        try (BufferAllocator allocator = new RootAllocator(); VarCharVector arrow = new VarCharVector("mode", allocator)) {
            arrow.allocateNew(MODES.length);
            for (int row = 0; row < MODES.length; row++) {
                if (MODES[row] == null) {
                    spark.putNull(row);
                    arrow.setNull(row);
                }
                else {
                    byte[] value = MODES[row].getBytes(StandardCharsets.UTF_8);
                    spark.putByteArray(row, value);
                    arrow.setSafe(row, value);
                }
            }
            arrow.setValueCount(MODES.length);
            assertArrayEquals(expected, match(test, new ArrowColumnVector(arrow), MODES.length), "Arrow: " + test);
            assertArrayEquals(expected, match(test, spark, MODES.length), "on-heap: " + test);
        }
    }

    private static boolean[] match(AggregateInput.ValueTest test, ColumnVector vector, int rows)
    {
        boolean[] matches = new boolean[rows + 3];
        // Filled true first: a row the matcher failed to write reads as a wrong answer.
        Arrays.fill(matches, true);
        ValueTestMatcher.of(test).match(vector, rows, matches);
        return Arrays.copyOf(matches, rows);
    }

    private static UTF8String utf8(String value)
    {
        return UTF8String.fromString(value);
    }
}
