package dev.ferry.gds.read;

import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.spark.sql.sources.EqualNullSafe;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.GreaterThan;
import org.apache.spark.sql.sources.GreaterThanOrEqual;
import org.apache.spark.sql.sources.In;
import org.apache.spark.sql.sources.LessThan;
import org.apache.spark.sql.sources.LessThanOrEqual;
import org.apache.spark.sql.sources.Not;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Decimal comparisons in {@link RowFilter} against BigDecimal's own ordering: every comparison, IN
 * and NOT, with literals at the column's scale, finer than it (1.005 on DECIMAL(15,2)), coarser,
 * and beyond the column's precision; on a DECIMAL(15,2) column and on a DECIMAL(38,10) one whose
 * unscaled values use both 64-bit halves.
 */
class DecimalRowFilterEvaluationTest
{
    private static final String[] SMALL = {"1.00", "1.01", "0.99", null, "-1.00", "-1.01", "0.00", "9999999999999.99", "-9999999999999.99", "1.10", "-0.01"};
    private static final String[] LITERALS = {"1.005", "1", "1.0", "1.00", "1.01", "1.0100000", "-1.005", "-1.01", "0.001", "-0.001", "0", "1E+40", "-1E+40",
            "9999999999999.99", "9999999999999.995", "-9999999999999.995", "1.1", "0.985"};

    @Test
    void comparesExactlyAtTheColumnsScale()
    {
        check(new DecimalType(15, 2), values(SMALL));
    }

    @Test
    void comparesValuesThatNeedBothHalvesOfTheUnscaledValue()
    {
        Random random = new Random(21);
        List<BigDecimal> values = new ArrayList<>();
        for (int index = 0; index < 200; index++) {
            BigInteger unscaled = new BigInteger(random.nextInt(126) + 1, random);
            values.add(index % 17 == 0 ? null : new BigDecimal(random.nextBoolean() ? unscaled : unscaled.negate(), 10));
        }
        // Neighbours that differ only in the low half, and across the sign of the low half.
        values.add(new BigDecimal(BigInteger.ONE.shiftLeft(64), 10));
        values.add(new BigDecimal(BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE), 10));
        values.add(new BigDecimal(BigInteger.ONE.shiftLeft(63), 10));
        values.add(new BigDecimal(BigInteger.ONE.shiftLeft(64).negate(), 10));
        values.add(new BigDecimal(BigInteger.ONE.shiftLeft(64).negate().add(BigInteger.ONE), 10));
        List<String> literals = new ArrayList<>(List.of(LITERALS));
        for (int index = 0; index < 200; index += 7) {
            if (values.get(index) != null) {
                literals.add(values.get(index).toPlainString());
                literals.add(values.get(index).add(new BigDecimal("0.00000000005")).toPlainString());
            }
        }
        literals.add(new BigDecimal(BigInteger.ONE.shiftLeft(64), 10).toPlainString());
        literals.add("1E+30");
        literals.add("-99999999999999999999999999999.99999999995");
        check(new DecimalType(38, 10), values, literals.toArray(new String[0]));
    }

    @Test
    void takesSparksDecimalAndRefusesOtherLiterals()
    {
        StructType schema = new StructType().add("d", new DecimalType(15, 2));
        List<BigDecimal> values = values(SMALL);
        assertEquals(expected(values, value -> value.compareTo(new BigDecimal("1.00")) > 0),
                kept(new GreaterThan("d", Decimal.apply("1.001")), schema, values));
        // An integer literal is not a decimal's: Spark casts its literals to the column's type, so this is not evaluated.
        assertEquals(all(values), kept(new GreaterThan("d", 1), schema, values));
        // A vector of another scale than the column's is not what the type decodes to: every row kept.
        assertEquals(all(values), kept(new GreaterThan("d", new BigDecimal("1.00")), new StructType().add("d", new DecimalType(15, 3)), values, 2));
    }

    private static void check(DecimalType type, List<BigDecimal> values)
    {
        check(type, values, LITERALS);
    }

    private static void check(DecimalType type, List<BigDecimal> values, String[] literals)
    {
        StructType schema = new StructType().add("d", type);
        int checked = 0;
        for (String text : literals) {
            BigDecimal literal = new BigDecimal(text);
            assertEquals(expected(values, value -> value.compareTo(literal) == 0), kept(new EqualTo("d", literal), schema, values), "= " + text);
            assertEquals(expected(values, value -> value.compareTo(literal) == 0), kept(new EqualNullSafe("d", literal), schema, values), "<=> " + text);
            assertEquals(expected(values, value -> value.compareTo(literal) < 0), kept(new LessThan("d", literal), schema, values), "< " + text);
            assertEquals(expected(values, value -> value.compareTo(literal) <= 0), kept(new LessThanOrEqual("d", literal), schema, values), "<= " + text);
            assertEquals(expected(values, value -> value.compareTo(literal) > 0), kept(new GreaterThan("d", literal), schema, values), "> " + text);
            assertEquals(expected(values, value -> value.compareTo(literal) >= 0), kept(new GreaterThanOrEqual("d", literal), schema, values), ">= " + text);
            assertEquals(expected(values, value -> value.compareTo(literal) >= 0), kept(new Not(new LessThan("d", literal)), schema, values), "NOT < " + text);
            BigDecimal other = new BigDecimal("1.01");
            assertEquals(expected(values, value -> value.compareTo(literal) == 0 || value.compareTo(other) == 0),
                    kept(new In("d", new Object[] {literal, other}), schema, values), "IN " + text);
            checked++;
        }
        assertTrue(checked >= LITERALS.length);
    }

    private static List<BigDecimal> values(String[] texts)
    {
        List<BigDecimal> values = new ArrayList<>();
        for (String text : texts) {
            values.add(text == null ? null : new BigDecimal(text));
        }
        return values;
    }

    // Nulls are never kept: every filter checked here is NULL or FALSE on a null row.
    private static List<Integer> expected(List<BigDecimal> values, java.util.function.Predicate<BigDecimal> holds)
    {
        List<Integer> rows = new ArrayList<>();
        for (int row = 0; row < values.size(); row++) {
            if (values.get(row) != null && holds.test(values.get(row))) {
                rows.add(row);
            }
        }
        return rows;
    }

    private static List<Integer> all(List<BigDecimal> values)
    {
        List<Integer> rows = new ArrayList<>();
        for (int row = 0; row < values.size(); row++) {
            rows.add(row);
        }
        return rows;
    }

    private static List<Integer> kept(Filter filter, StructType schema, List<BigDecimal> values)
    {
        return kept(filter, schema, values, ((DecimalType) schema.fields()[0].dataType()).scale());
    }

    /** The rows of {@code values}, in a vector of scale {@code vectorScale}, that the filter keeps. */
    private static List<Integer> kept(Filter filter, StructType schema, List<BigDecimal> values, int vectorScale)
    {
        DecimalType type = (DecimalType) schema.fields()[0].dataType();
        try (RootAllocator allocator = new RootAllocator(); DecimalVector vector = new DecimalVector("d", allocator, type.precision(), vectorScale)) {
            vector.allocateNew(values.size());
            for (int row = 0; row < values.size(); row++) {
                if (values.get(row) == null) {
                    vector.setNull(row);
                }
                else {
                    vector.set(row, values.get(row).setScale(vectorScale));
                }
            }
            vector.setValueCount(values.size());
            List<FieldVector> columns = List.of(vector);
            int[] selected = new int[values.size()];
            int count = RowFilter.compile(List.of(filter), schema, false)
                    .map(compiled -> compiled.select(columns, values.size(), selected))
                    .orElse(-1);
            if (count < 0) {
                return all(values);
            }
            List<Integer> rows = new ArrayList<>();
            for (int index = 0; index < count; index++) {
                rows.add(selected[index]);
            }
            return rows;
        }
    }
}
