package dev.ferry.examples.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.ferry.examples.bench.shuffle.ExecutorProcessCpu;
import dev.ferry.examples.bench.shuffle.ShuffleData;
import dev.ferry.examples.bench.shuffle.ShuffleOptions;
import dev.ferry.examples.bench.shuffle.ShuffleQueries;
import dev.ferry.examples.bench.shuffle.ShuffleQueries.Query;
import dev.ferry.examples.bench.shuffle.StageLog;
import dev.ferry.examples.bench.shuffle.TaskShuffleBytes;
import dev.ferry.examples.etl.ShuffleSummary;
import dev.ferry.examples.launch.SparkJvm;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * {@code bin/ferry bench shuffle}: a shuffle-heavy query set (a wide join, group-bys, a
 * repartition, a distinct) over generated Parquet tables, each query run with Ferry's columnar
 * exchange ({@code spark.ferry.enabled=true}) and with Spark's own exchange and sort shuffle
 * ({@code spark.ferry.enabled=false}; FerryShuffleManager hands those to SortShuffleManager
 * unchanged) in one JVM, alternating which goes first. Prints per query the median wall time of
 * each, the ratio (Spark time / Ferry time: above 1 means Ferry is faster), the shuffle bytes each
 * wrote (Spark's {@code shuffleBytesWritten} SQL metric of every exchange, cross-checked against
 * the tasks' {@code shuffleWriteMetrics.bytesWritten}) and their ratio (Ferry / Spark). Checks that
 * both return the same rows. Not a test.
 */
public final class ShuffleBenchmark
{
    private ShuffleBenchmark() {}

    public static void main(String[] args)
            throws IOException, InterruptedException
    {
        int childExit = SparkJvm.relaunchIfNeeded(ShuffleBenchmark.class, args);
        if (childExit >= 0) {
            System.exit(childExit);
        }
        ShuffleOptions options = ShuffleOptions.parse(args);
        SparkSession spark = session(options);
        TaskShuffleBytes taskBytes = new TaskShuffleBytes();
        spark.sparkContext().addSparkListener(taskBytes);
        if (options.verbose) {
            spark.sparkContext().addSparkListener(new StageLog());
        }
        try {
            Path base = options.data != null ? Path.of(options.data)
                    : (Files.isDirectory(Path.of("examples", "target")) ? Path.of("examples", "target") : Path.of("target")).resolve("bench-data");
            Path data = ShuffleData.register(spark, options.rows, base);
            System.out.printf(Locale.ROOT, "data: %s (%,d fact rows, %,d dim rows), %s, spark.sql.shuffle.partitions=%s, %d timed runs per side after a warm-up%n",
                    data, options.rows, ShuffleData.dimRows(options.rows), options.master, spark.conf().get("spark.sql.shuffle.partitions"), options.runs);
            List<Result> results = new ArrayList<>();
            for (Query query : ShuffleQueries.ALL) {
                if (options.query != null && !query.name().startsWith(options.query)) {
                    continue;
                }
                Result result = run(spark, query, options, taskBytes);
                System.out.printf(Locale.ROOT, "%s: ferry %.2f s, spark %.2f s, ratio %.2fx; task cpu ferry %.2f s, spark %.2f s (%.2fx); bytes ferry %,d, spark %,d (%.2fx)%n",
                        result.name, result.ferryNanos / 1e9, result.sparkNanos / 1e9, result.timeRatio(), result.ferryCpuNanos / 1e9, result.sparkCpuNanos / 1e9,
                        result.cpuRatio(), result.ferryBytes, result.sparkBytes, result.bytesRatio());
                results.add(result);
            }
            if (results.isEmpty()) {
                throw new IllegalArgumentException("No query named " + options.query + "*; queries: " + ShuffleQueries.ALL.stream().map(Query::name).toList());
            }
            print(results, options);
        }
        finally {
            spark.stop();
        }
    }

    private static SparkSession session(ShuffleOptions options)
            throws InterruptedException
    {
        SparkSession.Builder builder = SparkSession.builder()
                .master(options.master)
                .appName("ferry-bench-shuffle")
                .config("spark.plugins", "dev.ferry.FerryPlugin")
                .config("spark.shuffle.manager", "dev.ferry.shuffle.FerryShuffleManager")
                .config("spark.ferry.enabled", "true")
                .config("spark.ui.enabled", "false")
                .config("spark.log.level", "WARN")
                .config("spark.sql.adaptive.enabled", "true")
                // Joins must shuffle both sides, not broadcast the smaller one.
                .config("spark.sql.autoBroadcastJoinThreshold", "-1")
                .config("spark.sql.adaptive.autoBroadcastJoinThreshold", "-1")
                .config("spark.sql.session.timeZone", "UTC");
        boolean localCluster = options.master.startsWith("local-cluster");
        if (localCluster) {
            // What Spark's launcher would provide: executors run from this JVM's class path.
            builder.config("spark.executorEnv.SPARK_SCALA_VERSION", "2.13")
                    .config("spark.executorEnv.SPARK_TESTING", "1")
                    .config("spark.executor.extraClassPath", System.getProperty("java.class.path"));
        }
        options.conf.forEach(builder::config);
        SparkSession spark = builder.getOrCreate();
        spark.sparkContext().setLogLevel("WARN");
        if (localCluster) {
            int executors = Integer.parseInt(options.master.replaceAll("^local-cluster\\[\\s*(\\d+).*$", "$1"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            while (spark.sparkContext().statusTracker().getExecutorInfos().length < executors + 1) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("The " + executors + " local-cluster executors did not start within 180 s");
                }
                Thread.sleep(100);
            }
        }
        return spark;
    }

    private static Result run(SparkSession spark, Query query, ShuffleOptions options, TaskShuffleBytes taskBytes)
    {
        // Warm-up (JIT, page cache) and the check that both shuffles return the same rows.
        Timed ferryWarm = time(spark, query, options, true, taskBytes);
        Timed sparkWarm = time(spark, query, options, false, taskBytes);
        List<String> ferryRows = sorted(ferryWarm.rows);
        List<String> sparkRows = sorted(sparkWarm.rows);
        if (!ferryRows.equals(sparkRows)) {
            throw new IllegalStateException(query.name() + ": Ferry and Spark disagree: " + ferryRows + " vs " + sparkRows);
        }
        if (ferryWarm.summary.ferryExchanges() == 0 || ferryWarm.summary.sparkExchanges() != 0) {
            // A benchmark of Spark against itself would be meaningless: say so loudly.
            System.out.printf(Locale.ROOT, "WARNING %s: with Ferry on, the plan had %d Ferry and %d Spark exchanges%n", query.name(),
                    ferryWarm.summary.ferryExchanges(), ferryWarm.summary.sparkExchanges());
        }
        long[] ferryNanos = new long[options.runs];
        long[] sparkNanos = new long[options.runs];
        long[] ferryCpu = new long[options.runs];
        long[] sparkCpu = new long[options.runs];
        Timed ferry = ferryWarm;
        Timed plain = sparkWarm;
        for (int run = 0; run < options.runs; run++) {
            // Alternate the order so neither side always runs right after the other warmed caches or filled the heap.
            if (run % 2 == 0) {
                ferry = time(spark, query, options, true, taskBytes);
                plain = time(spark, query, options, false, taskBytes);
            }
            else {
                plain = time(spark, query, options, false, taskBytes);
                ferry = time(spark, query, options, true, taskBytes);
            }
            ferryNanos[run] = ferry.nanos;
            sparkNanos[run] = plain.nanos;
            ferryCpu[run] = ferry.cpuNanos;
            sparkCpu[run] = plain.cpuNanos;
        }
        return new Result(query.name(), Medians.of(ferryNanos), Medians.of(sparkNanos), ferry.summary.bytesWritten(), plain.summary.bytesWritten(),
                ferry.taskBytes, plain.taskBytes, Medians.of(ferryCpu), Medians.of(sparkCpu));
    }

    private static Timed time(SparkSession spark, Query query, ShuffleOptions options, boolean ferry, TaskShuffleBytes taskBytes)
    {
        spark.conf().set("spark.ferry.enabled", String.valueOf(ferry));
        if (options.verbose) {
            System.out.println(query.name() + (ferry ? " with Ferry" : " with Spark's shuffle"));
        }
        try {
            drain(spark);
            taskBytes.reset();
            Dataset<Row> frame = spark.sql(query.sql());
            long processCpuBefore = options.verbose ? ExecutorProcessCpu.childrenCpuNanos() : -1;
            Map<String, Long> threadCpuBefore = options.verbose ? ExecutorProcessCpu.childThreadCpuNanos() : Map.of();
            long start = System.nanoTime();
            List<Row> rows = frame.collectAsList();
            long nanos = System.nanoTime() - start;
            drain(spark);
            if (options.verbose) {
                long processCpu = ExecutorProcessCpu.childrenCpuNanos();
                if (processCpuBefore >= 0 && processCpu >= 0) {
                    System.out.printf(Locale.ROOT, "  executor processes: %d ms cpu (all threads), tasks: %d ms cpu%n", (processCpu - processCpuBefore) / 1_000_000,
                            taskBytes.cpuNanos() / 1_000_000);
                    StringBuilder threads = new StringBuilder("  executor threads' cpu (ms, >= 20):");
                    ExecutorProcessCpu.childThreadCpuNanos().forEach((name, threadNanos) -> {
                        long ms = (threadNanos - threadCpuBefore.getOrDefault(name, 0L)) / 1_000_000;
                        if (ms >= 20) {
                            threads.append(' ').append(name).append('=').append(ms);
                        }
                    });
                    System.out.println(threads);
                }
                // The final adaptive plan: partition counts after AQE's coalescing, skew splits and join choices.
                System.out.println(frame.queryExecution().executedPlan().treeString());
            }
            return new Timed(rows, nanos, ShuffleSummary.of(frame.queryExecution().executedPlan()), taskBytes.bytesWritten(), taskBytes.cpuNanos());
        }
        finally {
            spark.conf().set("spark.ferry.enabled", "true");
        }
    }

    // Task-end events arrive on the listener bus after the job.
    private static void drain(SparkSession spark)
    {
        try {
            spark.sparkContext().listenerBus().waitUntilEmpty();
        }
        catch (TimeoutException e) {
            throw new IllegalStateException("Spark's listener bus did not drain", e);
        }
    }

    private static void print(List<Result> results, ShuffleOptions options)
    {
        System.out.println();
        String header = "%-18s %9s %9s %7s %10s %10s %7s %15s %15s %7s%n";
        String line = "%-18s %9.2f %9.2f %6.2fx %10.2f %10.2f %6.2fx %15s %15s %6.2fx%n";
        System.out.printf(Locale.ROOT, header, "query", "ferry s", "spark s", "ratio", "ferry cpu", "spark cpu", "cpu", "ferry bytes", "spark bytes", "bytes");
        Result total = new Result("total", 0, 0, 0, 0, 0, 0, 0, 0);
        for (Result result : results) {
            total = new Result("total", total.ferryNanos + result.ferryNanos, total.sparkNanos + result.sparkNanos, total.ferryBytes + result.ferryBytes,
                    total.sparkBytes + result.sparkBytes, 0, 0, total.ferryCpuNanos + result.ferryCpuNanos, total.sparkCpuNanos + result.sparkCpuNanos);
            printLine(line, result);
        }
        printLine(line, total);
        for (Result result : results) {
            if (result.ferryBytes != result.ferryTaskBytes || result.sparkBytes != result.sparkTaskBytes) {
                System.out.printf(Locale.ROOT, "note %s: exchange metrics and task metrics differ (ferry %,d vs %,d, spark %,d vs %,d)%n", result.name, result.ferryBytes,
                        result.ferryTaskBytes, result.sparkBytes, result.sparkTaskBytes);
            }
        }
        System.out.printf(Locale.ROOT, "ratio = spark wall time / ferry wall time, cpu = spark task CPU / ferry task CPU (medians of %d runs after a warm-up; > 1 means Ferry is faster); "
                + "bytes = ferry / spark shuffle bytes written (shuffleBytesWritten of every exchange, as Spark's task metrics count them). Targets: ratio >= 1.5, bytes <= 1.0. "
                + "All results agreed.%n", options.runs);
    }

    private static void printLine(String line, Result result)
    {
        System.out.printf(Locale.ROOT, line, result.name, result.ferryNanos / 1e9, result.sparkNanos / 1e9, result.timeRatio(), result.ferryCpuNanos / 1e9,
                result.sparkCpuNanos / 1e9, result.cpuRatio(), String.format(Locale.ROOT, "%,d", result.ferryBytes), String.format(Locale.ROOT, "%,d", result.sparkBytes),
                result.bytesRatio());
    }

    private static List<String> sorted(List<Row> rows)
    {
        List<String> strings = new ArrayList<>();
        for (Row row : rows) {
            strings.add(row.toString());
        }
        strings.sort(null);
        return strings;
    }

    private record Timed(List<Row> rows, long nanos, ShuffleSummary summary, long taskBytes, long cpuNanos) {}

    private record Result(String name, long ferryNanos, long sparkNanos, long ferryBytes, long sparkBytes, long ferryTaskBytes, long sparkTaskBytes,
            long ferryCpuNanos, long sparkCpuNanos)
    {
        double cpuRatio()
        {
            return (double) sparkCpuNanos / ferryCpuNanos;
        }

        double timeRatio()
        {
            return (double) sparkNanos / ferryNanos;
        }

        double bytesRatio()
        {
            return sparkBytes == 0 ? 0 : (double) ferryBytes / sparkBytes;
        }
    }
}
