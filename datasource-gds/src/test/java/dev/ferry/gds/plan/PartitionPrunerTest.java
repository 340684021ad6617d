package dev.ferry.gds.plan;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.sources.EqualNullSafe;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.GreaterThan;
import org.apache.spark.sql.sources.In;
import org.apache.spark.sql.sources.IsNull;
import org.apache.spark.sql.sources.Not;
import org.apache.spark.sql.sources.Or;
import org.apache.spark.sql.sources.StringEndsWith;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PartitionPrunerTest
{
    private static final StructType PARTITIONS = new StructType().add("year", DataTypes.IntegerType).add("region", DataTypes.StringType);
    private static final InternalRow Y2020_EU = new GenericInternalRow(new Object[] {2020, UTF8String.fromString("eu")});
    private static final InternalRow Y2021_NULL = new GenericInternalRow(new Object[] {2021, null});

    @Test
    void comparisonsOnPartitionValues()
    {
        assertTrue(mayMatch(new EqualTo("year", 2020), Y2020_EU));
        assertFalse(mayMatch(new EqualTo("year", 2021), Y2020_EU));
        assertFalse(mayMatch(new GreaterThan("year", 2020), Y2020_EU));
        assertTrue(mayMatch(new In("region", new Object[] {"us", "eu"}), Y2020_EU));
        assertFalse(mayMatch(new In("region", new Object[] {"us"}), Y2020_EU));
        assertTrue(mayMatch(new EqualTo("YEAR", 2020), Y2020_EU), "case-insensitive names");
    }

    @Test
    void nullsFollowSqlThreeValuedLogic()
    {
        assertFalse(mayMatch(new EqualTo("region", "eu"), Y2021_NULL), "null = 'eu' is null, which filters the row out");
        assertFalse(mayMatch(new Not(new EqualTo("region", "eu")), Y2021_NULL), "NOT null is still null");
        assertTrue(mayMatch(new IsNull("region"), Y2021_NULL));
        assertTrue(mayMatch(new EqualNullSafe("region", null), Y2021_NULL));
        assertTrue(mayMatch(new Or(new EqualTo("region", "eu"), new EqualTo("year", 2021)), Y2021_NULL));
    }

    @Test
    void whatItDoesNotUnderstandKeepsTheFile()
    {
        assertTrue(mayMatch(new EqualTo("label", "x"), Y2020_EU), "not a partition column");
        assertTrue(mayMatch(new EqualTo("year", 2021L), Y2020_EU), "a literal of another type");
        assertTrue(mayMatch(new StringEndsWith("region", "zz"), Y2020_EU), "an unsupported filter");
        assertTrue(mayMatch(new Not(new StringEndsWith("region", "zz")), Y2020_EU));
    }

    private static boolean mayMatch(Filter filter, InternalRow values)
    {
        return new PartitionPruner(List.of(filter), PARTITIONS, false).mayMatch(values);
    }
}
