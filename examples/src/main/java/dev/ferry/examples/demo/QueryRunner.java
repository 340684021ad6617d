package dev.ferry.examples.demo;

import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.ferry.examples.etl.ShuffleSummary;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;

/**
 * Runs one query in one mode over the cached tables: with Ferry (Ferry's exchange, tables read with
 * {@code spark.read.format("gds")}) or with Spark alone ({@code spark.ferry.enabled=false}, Spark's
 * sort shuffle, tables read with Spark's Parquet reader). The session is shared, so the mode is set
 * per run and the temporary views are re-pointed at the mode's reader.
 */
final class QueryRunner
{
    enum Mode
    {
        FERRY, SPARK
    }

    /** One run: wall time, rows sorted by their text (so two runs compare row by row), plan, what shuffles and scans did. */
    record Run(Mode mode, long millis, List<Row> rows, String plan, ShuffleSummary shuffles, GdsScanBytes scans)
    {
    }

    private static final long LISTENER_WAIT_MILLIS = 60_000;

    private final SparkSession spark;
    private final Path data;
    private final ExecutorRouteBytes routeBytes;

    QueryRunner(SparkSession spark, Path data, ExecutorRouteBytes routeBytes)
    {
        this.spark = spark;
        this.data = data;
        this.routeBytes = routeBytes;
    }

    Run run(String sql, Mode mode)
    {
        boolean ferry = mode == Mode.FERRY;
        spark.conf().set("spark.ferry.enabled", String.valueOf(ferry));
        for (String table : StarSchema.TABLES) {
            String path = data.resolve(table).toString();
            Dataset<Row> source = ferry ? spark.read().format("gds").load(path) : spark.read().parquet(path);
            source.createOrReplaceTempView(table);
        }
        // Only the Ferry runs' reads go on the drawing's links.
        routeBytes.recording(ferry);
        try {
            long started = System.nanoTime();
            Dataset<Row> result = spark.sql(sql);
            List<Row> rows = result.collectAsList();
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            SparkPlan plan = result.queryExecution().executedPlan();
            List<Row> sorted = rows.stream().sorted(Comparator.comparing(Row::toString)).toList();
            // Task-end events reach listeners asynchronously: let the last tasks' route bytes arrive before recording stops.
            try {
                spark.sparkContext().listenerBus().waitUntilEmpty(LISTENER_WAIT_MILLIS);
            }
            catch (TimeoutException e) {
                throw new IllegalStateException("Spark's listener bus did not drain within " + LISTENER_WAIT_MILLIS + " ms; per-executor route bytes would be incomplete", e);
            }
            return new Run(mode, millis, sorted, plan.toString(), ShuffleSummary.of(plan), GdsScanBytes.of(plan));
        }
        finally {
            routeBytes.recording(false);
            spark.conf().set("spark.ferry.enabled", "true");
        }
    }
}
