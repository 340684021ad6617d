package dev.ferry.gds.read;

import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.spark.sql.sources.AlwaysFalse;
import org.apache.spark.sql.sources.And;
import org.apache.spark.sql.sources.EqualNullSafe;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.GreaterThan;
import org.apache.spark.sql.sources.In;
import org.apache.spark.sql.sources.IsNull;
import org.apache.spark.sql.sources.LessThan;
import org.apache.spark.sql.sources.Not;
import org.apache.spark.sql.sources.Or;
import org.apache.spark.sql.sources.StringEndsWith;
import org.apache.spark.sql.sources.StringStartsWith;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.sql.Date;
import java.sql.Timestamp;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which filters RowFilter claims to evaluate exactly (Spark then does not evaluate them again), and what fails where that claim cannot hold. */
class ExactRowFilterTest
{
    private static final Metadata VARCHAR = new MetadataBuilder().putString("__CHAR_VARCHAR_TYPE_STRING", "varchar(10)").build();
    private static final StructType SCHEMA = new StructType().add("i", DataTypes.IntegerType).add("l", DataTypes.LongType)
            .add("d", DataTypes.DoubleType).add("s", DataTypes.StringType).add("dec", new DecimalType(15, 2)).add("dt", DataTypes.DateType)
            .add("ts", DataTypes.TimestampType).add("v", DataTypes.StringType, true, VARCHAR);

    @Test
    void claimsExactnessForWhatItEvaluatesWholly()
    {
        Filter[] exact = {
                new LessThan("dec", new BigDecimal("1.005")), new GreaterThan("i", 3), new EqualTo("l", 5L), new EqualNullSafe("d", 1.5),
                new In("s", new Object[] {"a", null}), new IsNull("dec"), new StringStartsWith("s", "ab"), new LessThan("dt", Date.valueOf("2020-01-01")),
                new Not(new Or(new GreaterThan("i", 3), new And(new IsNull("s"), new EqualTo("dec", new BigDecimal("2.00"))))),
                new EqualTo("i", null), new AlwaysFalse(),
        };
        for (Filter filter : exact) {
            assertTrue(RowFilter.exact(filter, SCHEMA, false), filter.toString());
        }
        Filter[] notExact = {
                new GreaterThan("ts", Timestamp.valueOf("2020-01-01 00:00:00")), new StringEndsWith("s", "x"), new EqualTo("v", "a"),
                new In("i", new Object[0]), new LessThan("i", "3"), new LessThan("missing", 1), new EqualTo("I", 1),
                new Or(new GreaterThan("i", 3), new StringEndsWith("s", "x")), new Not(new StringEndsWith("s", "x")),
                new And(new GreaterThan("i", 3), new GreaterThan("ts", Timestamp.valueOf("2020-01-01 00:00:00"))),
        };
        for (Filter filter : notExact) {
            assertFalse(RowFilter.exact(filter, SCHEMA, true), filter.toString());
        }
    }

    @Test
    void failsWhereAnExactClaimCannotHold()
    {
        Filter timestamps = new GreaterThan("ts", Timestamp.valueOf("2020-01-01 00:00:00"));
        assertThrows(IllegalStateException.class, () -> RowFilter.compile(List.of(timestamps), List.of(timestamps), SCHEMA, false));
        // Claimed exact, but the batch's column is not the vector the type decodes to: the read fails rather than keep every row.
        Filter ints = new GreaterThan("i", 3);
        RowFilter claimed = RowFilter.compile(List.of(ints), List.of(ints), SCHEMA, false).orElseThrow();
        RowFilter unclaimed = RowFilter.compile(List.of(ints), SCHEMA, false).orElseThrow();
        try (RootAllocator allocator = new RootAllocator(); BigIntVector longs = new BigIntVector("i", allocator)) {
            longs.allocateNew(2);
            longs.set(0, 1);
            longs.set(1, 5);
            longs.setValueCount(2);
            List<FieldVector> columns = java.util.Arrays.asList(longs, null, null, null, null, null, null, null);
            assertTrue(unclaimed.select(columns, 2, new int[2]) == 2, "unclaimed: every row kept");
            assertThrows(IllegalStateException.class, () -> claimed.select(columns, 2, new int[2]));
        }
    }
}
