package dev.ferry.examples.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.ferry.examples.bench.cluster.ClusterOptions;
import dev.ferry.examples.bench.cluster.ClusterQuery;
import dev.ferry.examples.bench.cluster.WireCounters;
import dev.ferry.examples.bench.shuffle.ShuffleData;
import dev.ferry.examples.demo.StarSchema;
import dev.ferry.examples.etl.ShuffleSummary;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The driver of {@code bin/ferry bench cluster}, submitted with {@code spark-submit} to a Spark
 * standalone cluster that {@code scripts/netns-cluster.sh} made across network namespaces with
 * shaped links (one Worker per node). Runs {@code bin/ferry bench shuffle}'s query set and the
 * demo's five queries, each with Ferry's exchange ({@code spark.ferry.enabled=true}) and with
 * Spark's own exchange and sort shuffle ({@code false}) in this one application, alternating which
 * goes first. Prints per query the median wall time of each side and their ratio (Spark / Ferry),
 * the bytes that crossed the links between nodes while it ran, read from the kernel's interface
 * counters of every node (not from Spark's metrics), Spark's shuffle-bytes metric, and whether both
 * sides returned the same rows (with a digest of each, which the integration test compares). Exits
 * 1 when any query's results differ. Not a test.
 */
public final class ClusterBenchmark
{
    private static final long EXECUTOR_WAIT_SECONDS = 180;

    private ClusterBenchmark() {}

    public static void main(String[] args)
            throws IOException, InterruptedException
    {
        ClusterOptions options = ClusterOptions.parse(args);
        WireCounters wire = WireCounters.fromEnvironment();
        SparkSession spark = session(options, wire.nodes());
        boolean identical = true;
        try {
            Path base = options.data != null ? Path.of(options.data) : Path.of("examples", "target", "bench-data").toAbsolutePath();
            List<ClusterQuery> queries = new ArrayList<>();
            for (ClusterQuery query : ClusterQuery.of(options.queries)) {
                if (options.query == null || query.name().startsWith(options.query)) {
                    queries.add(query);
                }
            }
            if (queries.isEmpty()) {
                throw new IllegalArgumentException("No query named " + options.query + "* in " + options.queries + ": " + ClusterQuery.of(options.queries).stream().map(ClusterQuery::name).toList());
            }
            register(spark, options, base, queries);
            System.out.printf(Locale.ROOT, "cluster: %s, %d nodes x 1 executor (%s cores), %,d rows, spark.sql.shuffle.partitions=%s, %d timed run(s) per side%s%n",
                    spark.sparkContext().master(), wire.nodes(), spark.conf().get("spark.executor.cores", "1"), options.rows, spark.conf().get("spark.sql.shuffle.partitions"),
                    options.runs, options.runs == 0 ? " (the checking runs are timed)" : " after a checking run");
            List<Result> results = new ArrayList<>();
            for (ClusterQuery query : queries) {
                Result result = run(spark, query, options, wire);
                results.add(result);
                identical &= result.identical();
                System.out.println(result.line());
                System.out.println(result.machineLine());
            }
            print(results);
        }
        finally {
            spark.stop();
        }
        System.exit(identical ? 0 : 1);
    }

    private static SparkSession session(ClusterOptions options, int nodes)
            throws InterruptedException
    {
        SparkSession.Builder builder = SparkSession.builder()
                .appName("ferry-bench-cluster")
                .config("spark.log.level", "WARN")
                .config("spark.sql.adaptive.enabled", "true")
                // Joins must shuffle both sides, not broadcast the smaller one.
                .config("spark.sql.autoBroadcastJoinThreshold", "-1")
                .config("spark.sql.adaptive.autoBroadcastJoinThreshold", "-1")
                .config("spark.sql.session.timeZone", "UTC");
        options.conf.forEach(builder::config);
        SparkSession spark = builder.getOrCreate();
        spark.sparkContext().setLogLevel("WARN");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(EXECUTOR_WAIT_SECONDS);
        // One executor per node (the driver is listed too): every node's Worker must have launched its executor.
        while (spark.sparkContext().statusTracker().getExecutorInfos().length < nodes + 1) {
            if (System.nanoTime() > deadline) {
                spark.stop();
                throw new IllegalStateException("Only " + (spark.sparkContext().statusTracker().getExecutorInfos().length - 1) + " of " + nodes
                        + " executors registered within " + EXECUTOR_WAIT_SECONDS + " s");
            }
            Thread.sleep(100);
        }
        return spark;
    }

    private static void register(SparkSession spark, ClusterOptions options, Path base, List<ClusterQuery> queries)
            throws IOException
    {
        if (queries.stream().anyMatch(query -> query.set().equals("shuffle"))) {
            ShuffleData.register(spark, options.rows, base);
        }
        if (queries.stream().anyMatch(query -> query.set().equals("demo"))) {
            Path star = StarSchema.location(base, options.rows).toAbsolutePath();
            if (!StarSchema.isComplete(star)) {
                System.out.printf(Locale.ROOT, "generating the demo's star schema (%,d lineitem rows) into %s (once; cached)%n", options.rows, star);
                Files.createDirectories(star);
                spark.conf().set("spark.ferry.enabled", "false");
                StarSchema.generate(spark, star, options.rows);
                spark.conf().set("spark.ferry.enabled", "true");
            }
            for (String table : StarSchema.TABLES) {
                spark.read().parquet(star.resolve(table).toString()).createOrReplaceTempView(table);
            }
        }
    }

    private static Result run(SparkSession spark, ClusterQuery query, ClusterOptions options, WireCounters wire)
    {
        Timed ferry = time(spark, query, true, wire);
        Timed plain = time(spark, query, false, wire);
        String ferryDigest = digest(ferry.rows);
        String sparkDigest = digest(plain.rows);
        long[] ferryNanos = new long[Math.max(1, options.runs)];
        long[] sparkNanos = new long[ferryNanos.length];
        ferryNanos[0] = ferry.nanos;
        sparkNanos[0] = plain.nanos;
        for (int run = 0; run < options.runs; run++) {
            // Alternate the order so neither side always runs right after the other warmed caches or filled the heap.
            if (run % 2 == 0) {
                ferry = time(spark, query, true, wire);
                plain = time(spark, query, false, wire);
            }
            else {
                plain = time(spark, query, false, wire);
                ferry = time(spark, query, true, wire);
            }
            ferryNanos[run] = ferry.nanos;
            sparkNanos[run] = plain.nanos;
        }
        return new Result(query.name(), ferry.rows.size(), ferryDigest, sparkDigest, Medians.of(ferryNanos), Medians.of(sparkNanos), ferry.wireBytes, plain.wireBytes,
                ferry.shaperDrops + plain.shaperDrops, ferry.summary, plain.summary);
    }

    private static Timed time(SparkSession spark, ClusterQuery query, boolean ferry, WireCounters wire)
    {
        spark.conf().set("spark.ferry.enabled", String.valueOf(ferry));
        try {
            drain(spark);
            Dataset<Row> frame = spark.sql(query.sql());
            WireCounters.Reading before = wire.read();
            long start = System.nanoTime();
            List<Row> rows = frame.collectAsList();
            long nanos = System.nanoTime() - start;
            WireCounters.Reading sent = wire.read().minus(before);
            drain(spark);
            return new Timed(rows, nanos, sent.bytesSent(), sent.shaperDrops(), ShuffleSummary.of(frame.queryExecution().executedPlan()));
        }
        finally {
            spark.conf().set("spark.ferry.enabled", "true");
        }
    }

    // Task-end events (the exchanges' metrics) arrive on the listener bus after the job.
    private static void drain(SparkSession spark)
    {
        try {
            spark.sparkContext().listenerBus().waitUntilEmpty();
        }
        catch (TimeoutException e) {
            throw new IllegalStateException("Spark's listener bus did not drain", e);
        }
    }

    /** SHA-256 of the sorted rows: equal digests, equal results (row order aside). */
    private static String digest(List<Row> rows)
    {
        List<String> strings = new ArrayList<>();
        for (Row row : rows) {
            strings.add(row.toString());
        }
        strings.sort(null);
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            for (String string : strings) {
                digest.update(string.getBytes(StandardCharsets.UTF_8));
                digest.update((byte) '\n');
            }
            return HexFormat.of().formatHex(digest.digest());
        }
        catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("No SHA-256 in this JVM", e);
        }
    }

    private static void print(List<Result> results)
    {
        System.out.println();
        String header = "%-26s %9s %9s %7s %15s %15s %6s %15s %15s  %s%n";
        String line = "%-26s %9.2f %9.2f %6.2fx %15s %15s %5.2fx %15s %15s  %s%n";
        System.out.printf(Locale.ROOT, header, "query", "ferry s", "spark s", "ratio", "ferry wire B", "spark wire B", "wire", "ferry shuffle B", "spark shuffle B", "results");
        long ferryNanos = 0;
        long sparkNanos = 0;
        long ferryWire = 0;
        long sparkWire = 0;
        long drops = 0;
        boolean identical = true;
        for (Result result : results) {
            System.out.printf(Locale.ROOT, line, result.name, result.ferryNanos / 1e9, result.sparkNanos / 1e9, result.timeRatio(), grouped(result.ferryWire), grouped(result.sparkWire),
                    result.wireRatio(), grouped(result.ferry.bytesWritten()), grouped(result.spark.bytesWritten()), result.identical() ? "identical" : "DIFFER");
            ferryNanos += result.ferryNanos;
            sparkNanos += result.sparkNanos;
            ferryWire += result.ferryWire;
            sparkWire += result.sparkWire;
            drops += result.shaperDrops;
            identical &= result.identical();
        }
        System.out.printf(Locale.ROOT, "ratio = Spark wall time / Ferry wall time (> 1: Ferry faster); wire = bytes the nodes sent each other while the query ran "
                + "(tx_bytes of every node's link, ip -s link), Ferry / Spark; shuffle B = Spark's shuffleBytesWritten metric; the shapers dropped %,d packets.%n", drops);
        System.out.printf(Locale.ROOT, "all queries: Spark/Ferry %.2fx, wire bytes Ferry/Spark %.2f, %s%n", (double) sparkNanos / ferryNanos,
                sparkWire == 0 ? 0.0 : (double) ferryWire / sparkWire, identical ? "results identical" : "results differ");
    }

    private static String grouped(long value)
    {
        return String.format(Locale.ROOT, "%,d", value);
    }

    private record Timed(List<Row> rows, long nanos, long wireBytes, long shaperDrops, ShuffleSummary summary) {}

    private record Result(String name, int rows, String ferryDigest, String sparkDigest, long ferryNanos, long sparkNanos, long ferryWire, long sparkWire, long shaperDrops,
            ShuffleSummary ferry, ShuffleSummary spark)
    {
        boolean identical()
        {
            return ferryDigest.equals(sparkDigest);
        }

        double timeRatio()
        {
            return (double) sparkNanos / ferryNanos;
        }

        double wireRatio()
        {
            return sparkWire == 0 ? 0 : (double) ferryWire / sparkWire;
        }

        String line()
        {
            return String.format(Locale.ROOT, "%s: ferry %.2f s, spark %.2f s, ratio %.2fx; wire ferry %,d B, spark %,d B (%.2fx); shuffle bytes ferry %,d, spark %,d; %s",
                    name, ferryNanos / 1e9, sparkNanos / 1e9, timeRatio(), ferryWire, sparkWire, wireRatio(), ferry.bytesWritten(), spark.bytesWritten(),
                    identical() ? "results identical (" + rows + " rows)" : "RESULTS DIFFER (ferry sha256 " + ferryDigest + ", spark " + sparkDigest + ")");
        }

        /** For the integration test: digests of both sides, the Ferry run's exchanges and routes, both wire counts. */
        String machineLine()
        {
            return "cluster-query " + name + " rows=" + rows + " ferryDigest=" + ferryDigest + " sparkDigest=" + sparkDigest + " ferryWire=" + ferryWire + " sparkWire=" + sparkWire
                    + " ferry." + ferry.line().replace(' ', ';') + " spark." + spark.line().replace(' ', ';');
        }
    }
}
