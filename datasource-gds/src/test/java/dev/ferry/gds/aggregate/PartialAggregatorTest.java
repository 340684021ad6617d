package dev.ferry.gds.aggregate;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The partials themselves: what Spark would hold, and no partial past the range Spark reads it in. */
class PartialAggregatorTest
{
    private static final StructField L = new StructField("l", DataTypes.LongType, true, Metadata.empty());
    private static final StructField D = new StructField("d", DataTypes.createDecimalType(4, 1), true, Metadata.empty());
    private static final StructField K = new StructField("k", DataTypes.IntegerType, true, Metadata.empty());

    @Test
    void longSumsSpillBeforeOverflowingAndAddUpExactly()
    {
        AggregatePlan plan = plan(List.of(), List.of(sum(L), count(L)), L);
        PartialAggregator aggregator = new PartialAggregator(plan);
        long[] values = {Long.MAX_VALUE, 5, Long.MAX_VALUE, -3, Long.MIN_VALUE};
        aggregator.add(batch(values.length, longs(values, 2)));
        List<InternalRow> rows = aggregator.results();
        assertTrue(rows.size() > 1, "expected spilled partials: " + rows.size());
        BigInteger total = BigInteger.ZERO;
        long count = 0;
        for (InternalRow row : rows) {
            if (!row.isNullAt(0)) {
                total = total.add(BigInteger.valueOf(row.getLong(0)));
            }
            count += row.getLong(1);
        }
        BigInteger expected = BigInteger.ZERO;
        for (int index = 0; index < values.length; index++) {
            if (index != 2) {
                expected = expected.add(BigInteger.valueOf(values[index]));
            }
        }
        assertEquals(expected, total);
        assertEquals(4, count);
    }

    @Test
    void decimalPartialsFitTheInputPrecisionThatSparkCastsThemTo()
    {
        AggregatePlan plan = plan(List.of(K), List.of(sum(D)), K, D);
        PartialAggregator aggregator = new PartialAggregator(plan);
        int rows = 50;
        OnHeapColumnVector keys = new OnHeapColumnVector(rows, DataTypes.IntegerType);
        OnHeapColumnVector decimals = new OnHeapColumnVector(rows, D.dataType());
        for (int row = 0; row < rows; row++) {
            keys.putInt(row, row % 2);
            // DECIMAL(4, 1) keeps unscaled ints on heap.
            decimals.putInt(row, 999 - row % 3);
        }
        aggregator.add(batch(rows, keys, decimals));
        BigDecimal[] totals = {BigDecimal.ZERO, BigDecimal.ZERO};
        for (InternalRow row : aggregator.results()) {
            Decimal partial = row.getDecimal(1, 14, 1);
            assertTrue(partial.changePrecision(4, 1), "a partial past DECIMAL(4, 1): " + partial);
            totals[row.getInt(0)] = totals[row.getInt(0)].add(partial.toJavaBigDecimal());
        }
        BigDecimal[] expected = {BigDecimal.ZERO, BigDecimal.ZERO};
        for (int row = 0; row < rows; row++) {
            expected[row % 2] = expected[row % 2].add(BigDecimal.valueOf(999 - row % 3, 1));
        }
        assertEquals(0, expected[0].compareTo(totals[0]), totals[0].toString());
        assertEquals(0, expected[1].compareTo(totals[1]), totals[1].toString());
    }

    @Test
    void withoutGroupByThereIsARowForNoInput()
    {
        AggregatePlan plan = plan(List.of(), List.of(new PushedAggregate(AggregateKind.COUNT_STAR, null, DataTypes.LongType), sum(L)), L);
        List<InternalRow> rows = new PartialAggregator(plan).results();
        assertEquals(1, rows.size());
        assertEquals(0, rows.get(0).getLong(0));
        assertNull(rows.get(0).get(1, DataTypes.LongType));
        PartialAggregator grouped = new PartialAggregator(plan(List.of(K), List.of(sum(L)), K, L));
        assertEquals(0, grouped.results().size());
    }

    private static PushedAggregate sum(StructField field)
    {
        DataType output = field.dataType() instanceof DecimalType decimal ? DataTypes.createDecimalType(decimal.precision() + 10, decimal.scale()) : DataTypes.LongType;
        return new PushedAggregate(AggregateKind.SUM, new AggregateInput.Column(field), output);
    }

    private static PushedAggregate count(StructField field)
    {
        return new PushedAggregate(AggregateKind.COUNT, new AggregateInput.Column(field), DataTypes.LongType);
    }

    private static AggregatePlan plan(List<StructField> groups, List<PushedAggregate> aggregates, StructField... inputs)
    {
        StructType schema = new StructType(inputs);
        int[] ordinals = groups.stream().mapToInt(group -> schema.fieldIndex(group.name())).toArray();
        return new AggregatePlan(groups, aggregates, schema, ordinals);
    }

    private static ColumnVector longs(long[] values, int nullAt)
    {
        OnHeapColumnVector vector = new OnHeapColumnVector(values.length, DataTypes.LongType);
        for (int row = 0; row < values.length; row++) {
            if (row == nullAt) {
                vector.putNull(row);
            }
            else {
                vector.putLong(row, values[row]);
            }
        }
        return vector;
    }

    private static ColumnarBatch batch(int rows, ColumnVector... columns)
    {
        return new ColumnarBatch(columns, rows);
    }
}
