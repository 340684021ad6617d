package dev.ferry.gds.spark;

import dev.ferry.gds.RowRendering;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The aggregate-pushdown tests' harness: a table of many small row groups (and an empty file)
 * written by Spark, queries run as SQL over a view {@code t} of it read by {@code gds} or by
 * {@code spark.read.parquet}, and the check that both answer alike with the aggregate pushed or not.
 */
final class AggregateQueries
{
    // The aggregate tests' columns. Nulls in every column, NaN and -0.0, strings beyond ASCII (binary order differs from code-point
    // order for some), an all-null column; doubles are multiples of 0.5 so sums do not depend on order.
    static final String[] COLUMNS = {
            "CASE WHEN id % 11 = 0 THEN NULL ELSE CAST(id % 5 AS INT) END AS g",
            "CASE WHEN id % 13 = 0 THEN NULL ELSE CAST(id % 100 - 50 AS BYTE) END AS b",
            "CAST(id * 7 % 30000 - 15000 AS SHORT) AS s",
            "CASE WHEN id % 7 = 0 THEN NULL ELSE CAST(id * 31 % 100000 - 50000 AS INT) END AS i",
            "id * 1000003 - 2500000000 AS l",
            "CASE WHEN id = 17 THEN CAST('NaN' AS FLOAT) WHEN id = 18 THEN CAST('-0.0' AS FLOAT) ELSE CAST((id % 40) * 0.25 - 5 AS FLOAT) END AS f",
            "CASE WHEN id = 5 THEN CAST('-0.0' AS DOUBLE) WHEN id % 17 = 0 THEN NULL ELSE (id % 200) * 0.5 - 50.0 END AS d",
            "CASE WHEN id = 123 THEN CAST('NaN' AS DOUBLE) ELSE CAST(id AS DOUBLE) END AS dn",
            "CASE WHEN id % 19 = 0 THEN NULL ELSE CAST(id * 12.34 - 30000 AS DECIMAL(12, 2)) END AS dec",
            "CAST(id * 123456789.123 AS DECIMAL(25, 3)) AS big",
            "CASE WHEN id % 9 = 0 THEN NULL WHEN id = 40 THEN 'é' WHEN id = 41 THEN '中文' WHEN id = 42 THEN 'Z' "
                    + "ELSE concat('s', CAST(id * 17 % 1000 AS STRING)) END AS str",
            "CASE WHEN id % 10 = 0 THEN NULL ELSE id % 3 = 0 END AS bool",
            "date_add(DATE '2020-01-01', CAST(id % 1000 AS INT)) AS dt",
            "CASE WHEN id % 23 = 0 THEN NULL ELSE timestamp_micros(1600000000000000 + id * 1000003) END AS ts",
            "CAST(NULL AS INT) AS allnull",
            "CASE WHEN id % 9 = 0 THEN NULL ELSE element_at(array('REG AIR', 'AIR', 'RAIL', 'SHIP', 'é'), CAST(id % 5 + 1 AS INT)) END AS mode",
    };

    private AggregateQueries() {}

    /** {@code columns} over 3,003 rows in three files of small row groups, plus an empty file, under {@code directory}/mixed. */
    static String mixed(Path directory, String[] columns)
    {
        String path = directory.resolve("mixed").toString();
        GdsSparkTest.spark.range(0, 3003, 1, 3).selectExpr(columns).write().option("parquet.block.size", "8192").parquet(path);
        GdsSparkTest.spark.range(0).selectExpr(columns).write().mode("append").parquet(path);
        return path;
    }

    static Dataset<Row> gds(String path)
    {
        return GdsSparkTest.spark.read().format("gds").load(path);
    }

    /** {@code query} over {@code table} as the view {@code t}. */
    static Dataset<Row> on(Dataset<Row> table, String query)
    {
        table.createOrReplaceTempView("t");
        return table.sparkSession().sql(query);
    }

    static String explain(Dataset<Row> frame)
    {
        return frame.queryExecution().executedPlan().toString();
    }

    /** The answers of {@code query} through {@code gds} equal Spark's own reader's, and the aggregate was pushed exactly when {@code expectPushed}. */
    static void assertSameAsParquet(String path, String query, boolean expectPushed, String context)
    {
        List<String> expected = RowRendering.sorted(on(GdsSparkTest.spark.read().parquet(path), query).collectAsList());
        Dataset<Row> ours = on(gds(path), query);
        assertEquals(expectPushed, explain(ours).contains("pushedAggregates="), context + ": " + query + "\n" + explain(ours));
        assertEquals(expected, RowRendering.sorted(ours.collectAsList()), context + ": " + query);
    }
}
