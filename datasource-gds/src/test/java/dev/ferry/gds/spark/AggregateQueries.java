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
