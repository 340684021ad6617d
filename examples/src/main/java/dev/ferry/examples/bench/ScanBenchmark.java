package dev.ferry.examples.bench;

import dev.ferry.examples.launch.SparkJvm;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.execution.metric.SQLMetric;
import scala.jdk.javaapi.CollectionConverters;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code bin/ferry bench scan}: the same scan-and-aggregate queries over the same Parquet files
 * (mixed types, half snappy, half zstd) read with the {@code gds} data source and with Spark's
 * built-in vectorized Parquet reader in one run; prints per-query times, the time ratio and the bytes
 * read. Data is generated once and cached under {@code examples/target/bench-data} (from the repository
 * root; else {@code target/bench-data}). Not a test.
 *
 * <pre>
 * ScanBenchmark [scan] [--gb N] [--quick] [--runs N] [--warmups N] [--data DIR] [--master M] [--route host|auto|gds|bounce] [--query q1] [--conf k=v]...
 * ScanBenchmark [scan] --writers [W1,W2...] [--rows N] [--runs N] [--warmups N] [--data DIR] [--master M] [--route R] [--query lineitem-scan] [--conf k=v]...
 * </pre>
 * {@code --quick} is {@code --gb 0.1 --runs 2}. {@code --writers} reads {@link WriterCorpus}'s lineitem table as each writer
 * wrote it ({@code --rows} rows, 6M unless told; all writers unless named) with issue 21's query and the query shapes above,
 * and prints per writer the time ratio, the task-CPU ratio and whether both readers (and all writers) gave the same answers.
 */
public final class ScanBenchmark
{
    private static final String[] COLUMNS = {
            "id",
            "CAST(pmod(hash(id), 1000) AS INT) AS k",
            "CAST(pmod(hash(id, 1), 100000) AS INT) AS qty",
            "rand(7) AS v",
            "CAST(rand(11) * 100000 AS DECIMAL(12, 2)) AS price",
            "pmod(hash(id, 2), 3) = 0 AS flag",
            "concat('name-', CAST(pmod(hash(id, 3), 50000) AS STRING)) AS name",
            "md5(CAST(id AS STRING)) AS note",
            "date_add(DATE '2020-01-01', CAST(pmod(hash(id, 4), 1500) AS INT)) AS day",
            "timestamp_micros(1600000000000000 + id * 1000003) AS ts",
    };

    private static final Pattern PUSHED_AGGREGATES = Pattern.compile("pushedAggregates=(\\[[^\\]]*\\]) pushedGroupBy=(\\[[^\\]]*\\])");

    private static final List<Query> QUERIES = List.of(
            new Query("q1-sum-numeric", "SELECT count(*), sum(v), sum(price), avg(qty), sum(id) FROM t"),
            new Query("q2-group-by", "SELECT k, count(*), sum(v), max(ts), min(day) FROM t GROUP BY k"),
            new Query("q3-strings-bools", "SELECT sum(length(note)), max(name), sum(CASE WHEN flag THEN 1 ELSE 0 END) FROM t"),
            new Query("q4-filtered", "SELECT count(*), sum(v), max(name) FROM t WHERE qty < 20000"));

    // About 55 bytes a row once compressed (measured: 17.9M rows made 0.97 GB); a little less so --gb 1 gives at least 1 GB.
    private static final long BYTES_PER_ROW = 52;

    private ScanBenchmark() {}

    public static void main(String[] args)
            throws IOException, InterruptedException
    {
        int childExit = SparkJvm.relaunchIfNeeded(ScanBenchmark.class, args);
        if (childExit >= 0) {
            System.exit(childExit);
        }
        Options options = Options.parse(args);
        SparkSession.Builder builder = SparkSession.builder()
                .master(options.master)
                .appName("ferry-bench-scan")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.adaptive.enabled", "true")
                .config("spark.sql.session.timeZone", "UTC");
        options.conf.forEach(builder::config);
        SparkSession spark = builder.getOrCreate();
        spark.sparkContext().setLogLevel("WARN");
        InputBytes input = new InputBytes();
        spark.sparkContext().addSparkListener(input);
        try {
            if (options.writers != null) {
                runWriters(spark, options, input);
                return;
            }
            Path data = generate(spark, options);
            long fileBytes = directoryBytes(data);
            System.out.printf(Locale.ROOT, "data: %s, %.2f GB on disk (snappy and zstd halves), %s, gds route %s%n", data, fileBytes / 1e9, options.master, options.route);
            System.out.println("load average at start: " + loadAverage());
            List<Result> results = new ArrayList<>();
            for (Query query : QUERIES) {
                if (options.query != null && !query.name.startsWith(options.query)) {
                    continue;
                }
                Result result = run(spark, data, query, options, input);
                if (result.mismatch != null) {
                    throw new IllegalStateException(result.mismatch);
                }
                System.out.printf(Locale.ROOT, "%s: gds %.2f s (task time decoding %.2f s, waiting for reads %.2f s, rows dropped by pushed filters in the scan %,d), parquet %.2f s%n",
                        result.name, result.gdsNanos / 1e9, result.decodeMs / 1e3, result.ioWaitMs / 1e3, result.rowsFiltered, result.parquetNanos / 1e9);
                results.add(result);
            }
            print(results, options);
            System.out.println("load average at end: " + loadAverage());
        }
        finally {
            spark.stop();
        }
    }

    // Each writer's copy of the lineitem table, every query on it, both readers alternating; answers checked against Spark's reader and across writers.
    private static void runWriters(SparkSession spark, Options options, InputBytes input)
            throws IOException
    {
        Path root = options.data != null ? Path.of(options.data)
                : (Files.isDirectory(Path.of("examples", "target")) ? Path.of("examples", "target") : Path.of("target")).resolve("bench-data");
        Path corpus = WriterCorpus.generate(spark, root, options.rows);
        System.out.printf(Locale.ROOT, "writers' corpus: %s, %,d rows per writer, %s, gds route %s%n", corpus, options.rows, options.master, options.route);
        System.out.println("load average at start: " + loadAverage());
        Map<String, List<String>> firstAnswers = new HashMap<>();
        List<String> summary = new ArrayList<>();
        for (String writer : options.writers) {
            Path data = corpus.resolve(writer);
            System.out.printf(Locale.ROOT, "%n== %s: %.3f GB in %s%n", writer, WriterCorpus.bytes(data) / 1e9, data);
            List<Result> results = new ArrayList<>();
            for (String[] named : WriterCorpus.QUERIES) {
                Query query = new Query(named[0], "lineitem", named[1]);
                if (options.query != null && !query.name.startsWith(options.query)) {
                    continue;
                }
                Result result = run(spark, data, query, options, input);
                List<String> earlier = firstAnswers.putIfAbsent(query.name, result.answers);
                String answers = result.mismatch != null ? "DIFFER: " + result.mismatch
                        : earlier != null && !earlier.equals(result.answers) ? "DIFFER from the first writer's: " + result.answers + " vs " + earlier
                        : "same";
                summary.add(String.format(Locale.ROOT, "%-22s %-16s %7.2fx %8.2fx %9.2f %9.2f  %s", writer, query.name, (double) result.parquetNanos / result.gdsNanos,
                        (double) result.parquetCpuNanos / Math.max(1, result.gdsCpuNanos), result.gdsNanos / 1e9, result.parquetNanos / 1e9, answers));
                results.add(result);
            }
            print(results, options);
            System.out.println("load average now: " + loadAverage());
        }
        System.out.printf(Locale.ROOT, "%n%-22s %-16s %8s %9s %9s %9s  %s%n", "writer", "query", "ratio", "cpu ratio", "gds s", "parquet s", "answers (gds vs spark.read.parquet, and across writers)");
        summary.forEach(System.out::println);
        System.out.println("load average at end: " + loadAverage());
    }

    private static Result run(SparkSession spark, Path data, Query query, Options options, InputBytes input)
    {
        Dataset<Row> gds = spark.read().format("gds").option("spark.ferry.gds.route", options.route).load(data.toString());
        Dataset<Row> parquet = spark.read().parquet(data.toString());
        if (query == QUERIES.get(0) || options.query != null) {
            System.out.printf(Locale.ROOT, "scan partitions: gds %d, parquet %d%n", gds.rdd().getNumPartitions(), parquet.rdd().getNumPartitions());
        }
        // Warm-up (JIT, page cache) and a check that both readers agree.
        List<String> ours = sortedStrings(time(spark, gds, query, input).rows);
        List<String> theirs = sortedStrings(time(spark, parquet, query, input).rows);
        String mismatch = ours.equals(theirs) ? null : query.name + ": gds and parquet disagree: " + ours + " vs " + theirs;
        // More untimed runs where asked: the JVM is still compiling Spark's own code a few queries in, which both readers pay.
        for (int warmup = 1; warmup < options.warmups; warmup++) {
            time(spark, warmup % 2 == 0 ? gds : parquet, query, input);
            time(spark, warmup % 2 == 0 ? parquet : gds, query, input);
        }
        System.out.printf(Locale.ROOT, "%s: %s%n", query.name, pushedAggregates(spark, gds, query));
        long[] gdsNanos = new long[options.runs];
        long[] parquetNanos = new long[options.runs];
        // Summed task CPU time (Spark's executorCpuTime) of each run: less sensitive than wall time to other load on the machine.
        long[] gdsCpu = new long[options.runs];
        long[] parquetCpu = new long[options.runs];
        // The whole JVM's CPU time during each run: task threads, JIT compiler, GC, gds's read threads.
        long[] gdsProcess = new long[options.runs];
        long[] parquetProcess = new long[options.runs];
        long gdsBytes = 0;
        long parquetBytes = 0;
        long[] readPaths = new long[3];
        long lastDecodeMs = 0;
        long lastIoWaitMs = 0;
        long lastRowsFiltered = 0;
        for (int run = 0; run < options.runs; run++) {
            // Alternate the order so neither reader always runs on a cache the other just warmed.
            Timed a;
            Timed b;
            if (run % 2 == 0) {
                a = time(spark, gds, query, input);
                input.reset();
                b = time(spark, parquet, query, input);
                parquetBytes = Math.max(input.bytes.get(), b.gdsBytes);
            }
            else {
                input.reset();
                b = time(spark, parquet, query, input);
                parquetBytes = Math.max(input.bytes.get(), b.gdsBytes);
                a = time(spark, gds, query, input);
            }
            gdsNanos[run] = a.nanos;
            parquetNanos[run] = b.nanos;
            gdsCpu[run] = a.cpuNanos;
            parquetCpu[run] = b.cpuNanos;
            gdsProcess[run] = a.processCpuNanos;
            parquetProcess[run] = b.processCpuNanos;
            gdsBytes = a.gdsBytes;
            readPaths = a.readPaths;
            lastDecodeMs = a.decodeMs;
            lastIoWaitMs = a.ioWaitMs;
            lastRowsFiltered = a.rowsFiltered;
        }
        return new Result(query.name, ours, mismatch, Medians.of(gdsNanos), Medians.of(parquetNanos), gdsBytes, parquetBytes, readPaths, lastDecodeMs, lastIoWaitMs, lastRowsFiltered,
                Medians.of(gdsCpu), Medians.of(parquetCpu), Medians.of(gdsProcess), Medians.of(parquetProcess));
    }

    // What the gds scan's description says Spark pushed into it (spark.ferry.gds.aggregatePushdown), so the figures say which path they measure.
    private static String pushedAggregates(SparkSession spark, Dataset<Row> source, Query query)
    {
        source.createOrReplaceTempView(query.view);
        String plan = spark.sql(query.sql).queryExecution().executedPlan().toString();
        Matcher pushed = PUSHED_AGGREGATES.matcher(plan);
        return pushed.find() ? "gds scan computes partial aggregates " + pushed.group(1) + " grouped by " + pushed.group(2) : "aggregates not pushed into the gds scan";
    }

    private static Timed time(SparkSession spark, Dataset<Row> source, Query query, InputBytes input)
    {
        source.createOrReplaceTempView(query.view);
        Dataset<Row> frame = spark.sql(query.sql);
        try {
            spark.sparkContext().listenerBus().waitUntilEmpty();
        }
        catch (TimeoutException e) {
            throw new IllegalStateException("Spark's listener bus did not drain", e);
        }
        input.takeCpuNanos();
        long processStart = ThreadCpuProbe.processCpuNanos();
        long start = System.nanoTime();
        List<Row> rows = frame.collectAsList();
        long nanos = System.nanoTime() - start;
        long processNanos = ThreadCpuProbe.processCpuNanos() - processStart;
        // Task-end events (Spark's input bytes) arrive on the listener bus, after the job.
        try {
            spark.sparkContext().listenerBus().waitUntilEmpty();
        }
        catch (TimeoutException e) {
            throw new IllegalStateException("Spark's listener bus did not drain", e);
        }
        SparkPlan plan = frame.queryExecution().executedPlan();
        return new Timed(rows, nanos, scanBytes(plan), new long[] {metric(plan, "trueDirectBytes"), metric(plan, "compatModeBytes"), metric(plan, "posixBytes")},
                metric(plan, "decodeMs"), metric(plan, "ioWaitMs"), metric(plan, "rowsFiltered"), input.takeCpuNanos(), processNanos);
    }

    // Bytes the gds scans read, on every route; for Spark's reader, the size of the files its scans read.
    private static long scanBytes(SparkPlan plan)
    {
        if (plan instanceof AdaptiveSparkPlanExec) {
            return scanBytes(((AdaptiveSparkPlanExec) plan).executedPlan());
        }
        if (plan instanceof QueryStageExec) {
            return scanBytes(((QueryStageExec) plan).plan());
        }
        long bytes = 0;
        SQLMetric filesSize = CollectionConverters.asJava(plan.metrics()).get("filesSize");
        if (filesSize != null) {
            // Spark's file scan: the size of the files it read (its task input metrics stay 0 for local files in some setups).
            bytes += filesSize.value();
        }
        if (plan instanceof BatchScanExec) {
            Map<String, SQLMetric> metrics = CollectionConverters.asJava(plan.metrics());
            for (String name : new String[] {"hostBytes", "bounceBytes", "gdsBytes"}) {
                SQLMetric metric = metrics.get(name);
                bytes += metric == null ? 0 : metric.value();
            }
        }
        for (SparkPlan child : CollectionConverters.asJava(plan.children())) {
            bytes += scanBytes(child);
        }
        return bytes;
    }

    // One gds scan metric summed over the plan's scans.
    private static long metric(SparkPlan plan, String name)
    {
        if (plan instanceof AdaptiveSparkPlanExec) {
            return metric(((AdaptiveSparkPlanExec) plan).executedPlan(), name);
        }
        if (plan instanceof QueryStageExec) {
            return metric(((QueryStageExec) plan).plan(), name);
        }
        long value = 0;
        if (plan instanceof BatchScanExec) {
            SQLMetric metric = CollectionConverters.asJava(plan.metrics()).get(name);
            value += metric == null ? 0 : metric.value();
        }
        for (SparkPlan child : CollectionConverters.asJava(plan.children())) {
            value += metric(child, name);
        }
        return value;
    }

    private static Path generate(SparkSession spark, Options options)
            throws IOException
    {
        long rows = (long) (options.gigabytes * 1e9 / BYTES_PER_ROW);
        Path data = options.data != null ? Path.of(options.data)
                : (Files.isDirectory(Path.of("examples", "target")) ? Path.of("examples", "target") : Path.of("target"))
                        .resolve("bench-data").resolve(String.format(Locale.ROOT, "scan-%drows", rows)).toAbsolutePath();
        Path done = data.resolve("_GENERATED");
        if (Files.exists(done)) {
            return data;
        }
        System.out.printf(Locale.ROOT, "generating %,d rows (about %.2f GB) into %s (once; cached)%n", rows, options.gigabytes, data);
        int files = Math.max(2, (int) Math.ceil(options.gigabytes * 8));
        long half = rows / 2;
        for (String codec : new String[] {"snappy", "zstd"}) {
            long first = codec.equals("snappy") ? 0 : half;
            long count = codec.equals("snappy") ? half : rows - half;
            spark.range(first, first + count, 1, files / 2).selectExpr(COLUMNS).write().mode("overwrite").option("compression", codec)
                    .parquet(data.resolve("codec=" + codec).toString());
        }
        Files.writeString(done, rows + " rows\n");
        return data;
    }

    // Other work on the machine skews both readers' times; the figures are only comparable with it recorded.
    private static String loadAverage()
    {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        }
        catch (IOException | RuntimeException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    private static long directoryBytes(Path directory)
            throws IOException
    {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(file -> file.toString().endsWith(".parquet")).mapToLong(file -> {
                try {
                    return Files.size(file);
                }
                catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).sum();
        }
    }

    private static void print(List<Result> results, Options options)
    {
        System.out.println();
        System.out.printf(Locale.ROOT, "%-18s %10s %10s %8s %12s %12s %10s %10s %9s %11s %10s%n", "query", "gds s", "parquet s", "ratio", "gds GB", "parquet GB",
                "gds cpu s", "pq cpu s", "cpu ratio", "gds proc s", "pq proc s");
        double gdsTotal = 0;
        double parquetTotal = 0;
        double gdsCpuTotal = 0;
        double parquetCpuTotal = 0;
        double gdsProcessTotal = 0;
        double parquetProcessTotal = 0;
        for (Result result : results) {
            gdsProcessTotal += result.gdsProcessNanos / 1e9;
            parquetProcessTotal += result.parquetProcessNanos / 1e9;
            gdsTotal += result.gdsNanos / 1e9;
            parquetTotal += result.parquetNanos / 1e9;
            gdsCpuTotal += result.gdsCpuNanos / 1e9;
            parquetCpuTotal += result.parquetCpuNanos / 1e9;
            System.out.printf(Locale.ROOT, "%-18s %10.2f %10.2f %7.2fx %12.3f %12.3f %10.2f %10.2f %8.2fx %11.2f %10.2f%n", result.name, result.gdsNanos / 1e9,
                    result.parquetNanos / 1e9, (double) result.parquetNanos / result.gdsNanos, result.gdsBytes / 1e9, result.parquetBytes / 1e9,
                    result.gdsCpuNanos / 1e9, result.parquetCpuNanos / 1e9, (double) result.parquetCpuNanos / Math.max(1, result.gdsCpuNanos),
                    result.gdsProcessNanos / 1e9, result.parquetProcessNanos / 1e9);
        }
        System.out.printf(Locale.ROOT, "%-18s %10.2f %10.2f %7.2fx %12s %12s %10.2f %10.2f %8.2fx %11.2f %10.2f%n", "total", gdsTotal, parquetTotal, parquetTotal / gdsTotal,
                "", "", gdsCpuTotal, parquetCpuTotal, parquetCpuTotal / gdsCpuTotal, gdsProcessTotal, parquetProcessTotal);
        for (Result result : results) {
            if (result.readPaths[0] + result.readPaths[1] + result.readPaths[2] > 0) {
                System.out.printf(Locale.ROOT, "gds read paths %s: trueDirect %.3f GB, compatMode %.3f GB, posix %.3f GB; %.2f GB/s%n", result.name,
                        result.readPaths[0] / 1e9, result.readPaths[1] / 1e9, result.readPaths[2] / 1e9, result.gdsBytes / (result.gdsNanos / 1e9) / 1e9);
            }
        }
        System.out.printf(Locale.ROOT, "ratio = parquet time / gds time (median of %d runs after %d warm-up run(s) per reader; > 1 means gds is faster); target >= 1.5x on the host route%n",
                options.runs, options.warmups);
        System.out.println("cpu = summed task CPU time (Spark's executorCpuTime, median run); cpu ratio = parquet / gds");
        System.out.println("proc = the whole JVM's CPU time during the query (tasks, JIT compiler, GC, gds's read threads; median run)");
    }

    private static List<String> sortedStrings(List<Row> rows)
    {
        List<String> strings = new ArrayList<>();
        for (Row row : rows) {
            StringBuilder text = new StringBuilder();
            for (int index = 0; index < row.length(); index++) {
                Object value = row.get(index);
                // Double sums differ in the last bits with the summation order.
                text.append(value instanceof Double ? String.format(Locale.ROOT, "%.6e", (Double) value) : String.valueOf(value)).append('|');
            }
            strings.add(text.toString());
        }
        strings.sort(null);
        return strings;
    }

    // view: the name the query's FROM clause reads.
    private record Query(String name, String view, String sql)
    {
        Query(String name, String sql)
        {
            this(name, "t", sql);
        }
    }

    // scanBytes: what the query's scans report reading (see scanBytes()).
    private record Timed(List<Row> rows, long nanos, long gdsBytes, long[] readPaths, long decodeMs, long ioWaitMs, long rowsFiltered, long cpuNanos,
            long processCpuNanos) {}

    // answers: gds's rows, sorted and rendered; mismatch: null where Spark's reader gave the same.
    private record Result(String name, List<String> answers, String mismatch, long gdsNanos, long parquetNanos, long gdsBytes, long parquetBytes, long[] readPaths, long decodeMs, long ioWaitMs,
            long rowsFiltered, long gdsCpuNanos, long parquetCpuNanos, long gdsProcessNanos, long parquetProcessNanos) {}

    private static final class InputBytes
            extends SparkListener
    {
        private final AtomicLong bytes = new AtomicLong();
        private final AtomicLong cpuNanos = new AtomicLong();

        /** Task CPU time since the last call. */
        long takeCpuNanos()
        {
            return cpuNanos.getAndSet(0);
        }

        void reset()
        {
            bytes.set(0);
        }

        @Override
        public void onTaskEnd(SparkListenerTaskEnd taskEnd)
        {
            if (taskEnd.taskMetrics() != null) {
                bytes.addAndGet(taskEnd.taskMetrics().inputMetrics().bytesRead());
                cpuNanos.addAndGet(taskEnd.taskMetrics().executorCpuTime());
            }
        }
    }

    private static final class Options
            extends SparkBenchOptions
    {
        double gigabytes = 1.0;
        String route = "host";
        // Untimed runs of each query per reader before the timed ones; the first also checks both readers agree.
        int warmups = 1;
        // --writers: the writers whose corpus copy to read (null: the mixed-type scan data instead).
        List<String> writers;
        long rows = 6_000_000;

        Options()
        {
            super(3, "local[*]");
        }

        static Options parse(String[] args)
        {
            Options options = new Options();
            for (int index = 0; index < args.length; index++) {
                String arg = args[index];
                int taken = options.acceptShared(args, index);
                if (taken >= 0) {
                    index = taken;
                    continue;
                }
                switch (arg) {
                    case "scan":
                        break;
                    case "--quick":
                        options.gigabytes = 0.1;
                        options.runs = 2;
                        break;
                    case "--gb":
                        options.gigabytes = Double.parseDouble(BenchArguments.value(args, ++index, arg));
                        break;
                    case "--route":
                        options.route = BenchArguments.value(args, ++index, arg);
                        break;
                    case "--writers":
                        if (index + 1 < args.length && !args[index + 1].startsWith("--")) {
                            options.writers = List.of(args[++index].split(","));
                            for (String writer : options.writers) {
                                if (!WriterCorpus.WRITERS.contains(writer)) {
                                    throw new IllegalArgumentException("Unknown writer " + writer + "; the corpus has " + WriterCorpus.WRITERS);
                                }
                            }
                        }
                        else {
                            options.writers = WriterCorpus.WRITERS;
                        }
                        break;
                    case "--rows":
                        options.rows = Long.parseLong(BenchArguments.value(args, ++index, arg));
                        break;
                    case "--warmups":
                        options.warmups = Integer.parseInt(BenchArguments.value(args, ++index, arg));
                        break;
                    default:
                        throw new IllegalArgumentException("Unknown argument " + arg
                                + "; usage: ScanBenchmark [scan] [--gb N] [--quick] [--runs N] [--warmups N] [--data DIR] [--master M] [--route host|auto|gds|bounce] [--query q1] [--conf k=v]..."
                                + " or ScanBenchmark --writers [W1,W2...] [--rows N] [--runs N] [--warmups N] [--data DIR] [--master M] [--route R] [--query Q] [--conf k=v]...");
                }
            }
            if (options.runs < 1 || options.warmups < 1 || options.gigabytes <= 0 || options.rows <= 0) {
                throw new IllegalArgumentException("--runs, --warmups, --gb and --rows must be positive");
            }
            return options;
        }

    }
}
