package dev.ferry.gds.read;

import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.GreaterThan;
import org.apache.spark.sql.sources.In;
import org.apache.spark.sql.sources.IsNull;
import org.apache.spark.sql.sources.LessThan;
import org.apache.spark.sql.sources.Not;
import org.apache.spark.sql.sources.Or;
import org.apache.spark.sql.sources.StringEndsWith;
import org.apache.spark.sql.sources.And;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Three-valued evaluation on Arrow vectors, and compaction of flat and nested vectors to the kept rows, without Spark. */
class RowFilterEvaluationTest
{
    // i: 0, null, 2, 3, null, 5; s: "a", "bb", null, "ccc", "d", "ee"
    private static final Integer[] INTS = {0, null, 2, 3, null, 5};
    private static final String[] STRINGS = {"a", "bb", null, "ccc", "d", "ee"};
    private static final StructType SCHEMA = new StructType().add("i", DataTypes.IntegerType).add("s", DataTypes.StringType)
            .add("ts", DataTypes.TimestampType);

    @Test
    void keepsExactlyTheRowsThatMayBeTrue()
    {
        // NOT (i < 3): null rows are NULL, so dropped with the rows where i < 3.
        assertEquals(List.of(3, 5), kept(new Not(new LessThan("i", 3))));
        // i < 3 OR i IS NULL
        assertEquals(List.of(0, 1, 2, 4), kept(new Or(new LessThan("i", 3), new IsNull("i"))));
        // IN with a null in the list: no match is NULL, dropped.
        assertEquals(List.of(2), kept(new In("i", new Object[] {2, null})));
        // NOT IN with a null in the list is never true.
        assertEquals(List.of(), kept(new Not(new In("i", new Object[] {2, null}))));
        // A filter it cannot evaluate (timestamp column) keeps every row it decides ...
        assertEquals(List.of(0, 1, 2, 3, 4, 5), kept(new GreaterThan("ts", java.sql.Timestamp.valueOf("2020-01-01 00:00:00"))));
        // ... also under NOT and OR, but an AND with an evaluable side still drops what that side rejects.
        assertEquals(List.of(0, 1, 2, 3, 4, 5), kept(new Not(new GreaterThan("ts", java.sql.Timestamp.valueOf("2020-01-01 00:00:00")))));
        assertEquals(List.of(3, 5), kept(new And(new StringEndsWith("s", "x"), new GreaterThan("i", 2))));
        assertEquals(List.of(0, 1, 2, 3, 4, 5), kept(new Or(new StringEndsWith("s", "x"), new GreaterThan("i", 2))));
        // Unsigned byte order for strings; null strings are NULL.
        assertEquals(List.of(3, 4, 5), kept(new GreaterThan("s", "bb")));
        assertEquals(List.of(0, 1, 3, 4, 5), kept(new Not(new IsNull("s"))));
        // A literal of another type is not evaluated.
        assertEquals(List.of(0, 1, 2, 3, 4, 5), kept(new LessThan("i", "3")));
    }

    @Test
    void filtersOnlyWhatItCanEvaluate()
    {
        assertTrue(RowFilter.compile(List.of(new GreaterThan("ts", java.sql.Timestamp.valueOf("2020-01-01 00:00:00"))), SCHEMA, false).isEmpty());
        assertTrue(RowFilter.compile(List.of(new LessThan("missing", 1)), SCHEMA, false).isEmpty());
        assertTrue(RowFilter.compile(List.of(new LessThan("I", 1)), SCHEMA, true).isEmpty(), "case-sensitive names");
        assertFalse(RowFilter.compile(List.of(new LessThan("I", 1)), SCHEMA, false).isEmpty());
        RowFilter filter = RowFilter.compile(List.of(new LessThan("i", 1)), SCHEMA, false).orElseThrow();
        assertTrue(filter.reads(0));
        assertFalse(filter.reads(1));
    }

    @Test
    void compactsFlatAndNestedVectorsToTheKeptRows()
    {
        try (RootAllocator allocator = new RootAllocator()) {
            List<FieldVector> columns = batch(allocator);
            ListVector lists = ListVector.empty("l", allocator);
            UnionListWriter writer = lists.getWriter();
            for (int row = 0; row < INTS.length; row++) {
                writer.setPosition(row);
                writer.startList();
                for (int item = 0; item < row; item++) {
                    writer.writeInt(item);
                }
                writer.endList();
            }
            lists.setValueCount(INTS.length);
            columns.add(lists);
            int[] selected = {1, 3, 5};
            List<FieldVector> kept = new ArrayList<>();
            for (FieldVector column : columns) {
                kept.add(BatchCompaction.keep(column, INTS.length, selected, selected.length, allocator));
            }
            IntVector ints = (IntVector) kept.get(0);
            VarCharVector strings = (VarCharVector) kept.get(1);
            ListVector keptLists = (ListVector) kept.get(3);
            assertEquals(3, ints.getValueCount());
            assertTrue(ints.isNull(0));
            assertEquals(3, ints.get(1));
            assertEquals(5, ints.get(2));
            assertEquals("bb", new String(strings.get(0), StandardCharsets.UTF_8));
            assertEquals("ccc", new String(strings.get(1), StandardCharsets.UTF_8));
            assertEquals("ee", new String(strings.get(2), StandardCharsets.UTF_8));
            assertEquals(3, keptLists.getValueCount());
            assertEquals(List.of(0), keptLists.getObject(0));
            assertEquals(List.of(0, 1, 2), keptLists.getObject(1));
            assertEquals(List.of(0, 1, 2, 3, 4), keptLists.getObject(2));
            kept.forEach(FieldVector::close);
            assertEquals(0, allocator.getAllocatedMemory());
        }
    }

    private static List<Integer> kept(Filter filter)
    {
        try (RootAllocator allocator = new RootAllocator()) {
            List<FieldVector> columns = batch(allocator);
            try {
                int[] selected = new int[INTS.length];
                int count = RowFilter.compile(List.of(filter), SCHEMA, false)
                        .map(compiled -> compiled.select(columns, INTS.length, selected))
                        .orElse(INTS.length);
                List<Integer> rows = new ArrayList<>();
                for (int index = 0; index < count; index++) {
                    rows.add(count == INTS.length ? index : selected[index]);
                }
                return rows;
            }
            finally {
                columns.forEach(FieldVector::close);
            }
        }
    }

    private static List<FieldVector> batch(RootAllocator allocator)
    {
        IntVector ints = new IntVector("i", allocator);
        VarCharVector strings = new VarCharVector("s", allocator);
        IntVector timestampsStandIn = new IntVector("ts", allocator);
        ints.allocateNew(INTS.length);
        strings.allocateNew();
        timestampsStandIn.allocateNew(INTS.length);
        for (int row = 0; row < INTS.length; row++) {
            if (INTS[row] != null) {
                ints.set(row, INTS[row]);
            }
            if (STRINGS[row] != null) {
                strings.setSafe(row, STRINGS[row].getBytes(StandardCharsets.UTF_8));
            }
            timestampsStandIn.set(row, row);
        }
        ints.setValueCount(INTS.length);
        strings.setValueCount(INTS.length);
        timestampsStandIn.setValueCount(INTS.length);
        return new ArrayList<>(Arrays.asList(ints, strings, timestampsStandIn));
    }
}
