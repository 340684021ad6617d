package dev.ferry.examples.bench;

import dev.ferry.examples.launch.SparkJvm;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * Where a scan query's CPU goes in the whole JVM, thread group by thread group (task threads, JIT
 * compiler, G1's concurrent and worker threads, ...), read from {@code /proc/self/task/N/stat}
 * around each run: Spark's task CPU metric cannot show the collector or the compiler, which compete
 * with the tasks for the cores. Runs one SQL query over {@code t} alternately with the {@code gds}
 * reader and Spark's Parquet reader. Linux only; a measuring tool, not a test.
 *
 * <pre>
 * ThreadCpuProbe --data DIR [--sql SQL] [--runs N] [--master M]
 * </pre>
 */
public final class ThreadCpuProbe
{
    private ThreadCpuProbe() {}

    public static void main(String[] args)
            throws Exception
    {
        int childExit = SparkJvm.relaunchIfNeeded(ThreadCpuProbe.class, args);
        if (childExit >= 0) {
            System.exit(childExit);
        }
        String data = null;
        String sql = "SELECT count(*), sum(v), sum(price), avg(qty), sum(id) FROM t";
        int runs = 5;
        String master = "local[2]";
        for (int index = 0; index < args.length; index++) {
            switch (args[index]) {
                case "--data" -> data = BenchArguments.value(args, ++index, "--data");
                case "--sql" -> sql = BenchArguments.value(args, ++index, "--sql");
                case "--runs" -> runs = Integer.parseInt(BenchArguments.value(args, ++index, "--runs"));
                case "--master" -> master = BenchArguments.value(args, ++index, "--master");
                default -> throw new IllegalArgumentException("Unknown argument " + args[index]
                        + "; usage: ThreadCpuProbe --data DIR [--sql SQL] [--runs N] [--master M]");
            }
        }
        if (data == null) {
            throw new IllegalArgumentException("--data DIR is required (e.g. the scan benchmark's examples/target/bench-data/scan-*rows)");
        }
        SparkSession spark = SparkSession.builder().master(master).appName("ferry-thread-cpu-probe")
                .config("spark.ui.enabled", "false").config("spark.sql.adaptive.enabled", "true").config("spark.sql.session.timeZone", "UTC").getOrCreate();
        spark.sparkContext().setLogLevel("WARN");
        try {
            for (int run = 0; run < runs; run++) {
                for (String reader : new String[] {"gds", "parquet"}) {
                    Dataset<Row> source = reader.equals("gds") ? spark.read().format("gds").option("spark.ferry.gds.route", "host").load(data) : spark.read().parquet(data);
                    source.createOrReplaceTempView("t");
                    Dataset<Row> frame = spark.sql(sql);
                    drain(spark);
                    Map<String, Long> before = threadTicks();
                    long start = System.nanoTime();
                    long processStart = processCpuNanos();
                    frame.collectAsList();
                    long processNanos = processCpuNanos() - processStart;
                    long wallNanos = System.nanoTime() - start;
                    Map<String, Long> groups = new TreeMap<>();
                    threadTicks().forEach((thread, ticks) -> {
                        long spent = ticks - before.getOrDefault(thread, 0L);
                        if (spent > 0) {
                            groups.merge(group(thread), spent, Long::sum);
                        }
                    });
                    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "run %d %-7s wall %5.2f s, process cpu %5.2f s:", run, reader, wallNanos / 1e9,
                            processNanos / 1e9));
                    // Clock ticks are 10 ms; smaller groups are noise.
                    groups.forEach((name, ticks) -> line.append(ticks >= 2 ? String.format(Locale.ROOT, " %s %.2f", name, ticks / 100.0) : ""));
                    System.out.println(line);
                }
            }
        }
        finally {
            spark.stop();
        }
    }

    private static void drain(SparkSession spark)
            throws TimeoutException
    {
        spark.sparkContext().listenerBus().waitUntilEmpty();
    }

    // Thread names with their numbers folded, so e.g. "G1 Conc#0" and "G1 Conc#1" add up.
    private static String group(String thread)
    {
        return thread.substring(0, thread.indexOf('@')).replaceAll("[0-9]+", "#").trim();
    }

    // utime + stime of every live thread of this JVM, in clock ticks, keyed by "name@tid".
    private static Map<String, Long> threadTicks()
            throws IOException
    {
        Map<String, Long> ticks = new HashMap<>();
        try (Stream<Path> threads = Files.list(Path.of("/proc/self/task"))) {
            for (Path thread : (Iterable<Path>) threads::iterator) {
                String stat;
                try {
                    stat = Files.readString(thread.resolve("stat"));
                }
                catch (IOException e) {
                    // The thread ended between the listing and the read.
                    continue;
                }
                int close = stat.lastIndexOf(')');
                String name = stat.substring(stat.indexOf('(') + 1, close);
                String[] fields = stat.substring(close + 2).split(" ");
                ticks.put(name + "@" + thread.getFileName(), Long.parseLong(fields[11]) + Long.parseLong(fields[12]));
            }
        }
        return ticks;
    }

    /** The JVM's CPU time over all its threads (tasks, JIT compiler, garbage collector, I/O threads). */
    static long processCpuNanos()
    {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }
}
