package dev.ferry.examples.demo;

import dev.ferry.examples.launch.SparkJvm;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.examples.etl.EtlData;
import dev.ferry.examples.etl.EtlPipeline;
import dev.ferry.examples.etl.ExecutedPlans;
import dev.ferry.examples.etl.ShuffleSummary;
import dev.ferry.topology.file.TopologyFileReader;
import dev.ferry.topology.report.DecisionReport;
import dev.ferry.topology.route.RoutePolicy;
import dev.ferry.topology.route.RoutePolicyConfig;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;

/**
 * {@code bin/ferry demo}: on this machine, with no cluster and no GPU, shows what Ferry does. It
 * summarizes the route decisions of a topology file, generates a small orders/lineitem dataset as
 * Parquet, runs one ETL job (read, join, aggregate, repartition, write) with Ferry's exchange and
 * again with Spark's sort shuffle in the same session, and prints each run's wall time, shuffle bytes
 * written and Ferry's bytes per route, whether the plan used Ferry's exchange, and whether the two
 * outputs hold the same rows. Exit codes: 0 same results, 1 different results or a failure, 2 bad arguments.
 */
public final class DemoCommand
{
    private static final int STEPS = 7;

    private final PrintStream out;
    private int step;

    private DemoCommand(PrintStream out)
    {
        this.out = out;
    }

    public static void main(String[] args)
            throws Exception
    {
        DemoArguments arguments;
        try {
            arguments = DemoArguments.parse(args);
        }
        catch (IllegalArgumentException e) {
            System.err.println("ferry demo: " + e.getMessage());
            System.err.print(DemoArguments.USAGE);
            System.exit(2);
            return;
        }
        if (arguments.help()) {
            System.out.print(DemoArguments.USAGE);
            System.exit(0);
        }
        int childExit = SparkJvm.relaunchIfNeeded(DemoCommand.class, args);
        if (childExit >= 0) {
            System.exit(childExit);
        }
        int exitCode;
        try {
            exitCode = new DemoCommand(new PrintStream(System.out, true, StandardCharsets.UTF_8)).run(arguments);
        }
        catch (Exception e) {
            System.err.println("ferry demo: failed: " + e);
            exitCode = 1;
        }
        System.exit(exitCode);
    }



    private int run(DemoArguments arguments)
            throws IOException, InterruptedException
    {
        progress("Route decisions for topology " + arguments.topology());
        Path topology = resolveTopology(arguments.topology());
        DecisionReport report = DecisionReport.decide(TopologyFileReader.load(topology), new RoutePolicy(RoutePolicyConfig.from(new MapConfigSource(Map.of()))));
        out.print(TopologySummary.render(report));
        out.println("  (what Ferry decides on that cluster; this run moves blocks on this machine over LOCAL and TCP."
                + " Every decision with its reason: bin/ferry topology --topology " + arguments.topology() + ")");

        Path directory = arguments.directory().isPresent() ? Files.createDirectories(arguments.directory().get()) : Files.createTempDirectory("ferry-demo");
        try {
            progress("Starting Spark (" + arguments.master() + ") with Ferry's plugin and shuffle manager");
            SparkSession spark = DemoSession.start(arguments.master());
            try {
                return run(spark, arguments, directory);
            }
            finally {
                spark.stop();
            }
        }
        finally {
            if (arguments.directory().isEmpty()) {
                deleteRecursively(directory);
            }
        }
    }

    private int run(SparkSession spark, DemoArguments arguments, Path directory)
            throws IOException, InterruptedException
    {
        Path input = directory.resolve("input");
        progress("Generating " + arguments.rows() + " lineitems and " + Math.max(1, arguments.rows() / 4) + " orders as Parquet under " + input);
        EtlData.generate(spark, input, arguments.rows());
        out.println("  " + megabytes(size(input)) + " of Parquet");

        Run ferry;
        Run plain;
        try (ExecutedPlans plans = ExecutedPlans.listen(spark)) {
            // Both code paths once over a tenth of the data, so neither timed run pays for class loading and JIT alone.
            progress("Warming up the JVM: both shuffles over a tenth of the data");
            Path warmup = directory.resolve("warmup");
            EtlData.generate(spark, warmup, Math.max(1000, arguments.rows() / 10));
            etl(spark, plans, true, warmup, warmup.resolve("output-ferry"));
            etl(spark, plans, false, warmup, warmup.resolve("output-spark"));
            progress("ETL (read Parquet, join, aggregate, repartition, write Parquet) with Ferry's exchange");
            ferry = etl(spark, plans, true, input, directory.resolve("output-ferry"));
            progress("The same ETL with Spark's sort shuffle (spark.ferry.enabled=false)");
            plain = etl(spark, plans, false, input, directory.resolve("output-spark"));
        }

        progress("Comparing the two outputs");
        Dataset<Row> a = spark.read().parquet(ferry.output().toString());
        Dataset<Row> b = spark.read().parquet(plain.output().toString());
        long rowsFerry = a.count();
        long rowsSpark = b.count();
        boolean same = rowsFerry == rowsSpark && a.exceptAll(b).isEmpty() && b.exceptAll(a).isEmpty();

        List<Long> ferryExchanges = ferry.summary().exchangeBytes();
        List<Long> plainExchanges = plain.summary().exchangeBytes();
        List<String> partitionings = ferry.summary().exchangePartitionings();
        // Each exchange is named by its partitioning, which says more than its position; the first column fits the longest.
        int width = Math.max(28, 2 + partitionings.stream().mapToInt(String::length).max().orElse(0));
        String row = "%-" + width + "s %18s %18s%n";
        out.println();
        out.printf(Locale.ROOT, row, "", "Ferry", "Spark sort shuffle");
        out.printf(Locale.ROOT, row, "wall time", seconds(ferry.millis()), seconds(plain.millis()));
        out.printf(Locale.ROOT, row, "exchanges (Ferry / Spark)",
                ferry.summary().ferryExchanges() + " / " + ferry.summary().sparkExchanges(), plain.summary().ferryExchanges() + " / " + plain.summary().sparkExchanges());
        out.printf(Locale.ROOT, row, "shuffle bytes written", ferry.summary().bytesWritten(), plain.summary().bytesWritten());
        for (int i = 0; i < Math.max(ferryExchanges.size(), plainExchanges.size()); i++) {
            out.printf(Locale.ROOT, row, "  " + (i < partitionings.size() ? partitionings.get(i) : "exchange " + (i + 1)),
                    i < ferryExchanges.size() ? ferryExchanges.get(i) : "-", i < plainExchanges.size() ? plainExchanges.get(i) : "-");
        }
        // Only the routes that carried something: on one machine LOCAL, between executor JVMs also TCP.
        ferry.summary().routeBytes().forEach((route, bytes) -> {
            if (bytes > 0 || route.equals("LOCAL")) {
                out.printf(Locale.ROOT, row, "bytes read via " + route, bytes, "-");
            }
        });
        out.printf(Locale.ROOT, row, "output rows", rowsFerry, rowsSpark);
        out.println();
        if (plain.summary().bytesWritten() > 0) {
            out.printf(Locale.ROOT, "Ferry wrote %.2fx the shuffle bytes of Spark's sort shuffle; wall time Ferry/Spark %.2f.%n",
                    ferry.summary().bytesWritten() / (double) plain.summary().bytesWritten(), ferry.millis() / (double) Math.max(1, plain.millis()));
        }
        boolean usedFerry = ferry.summary().ferryExchanges() > 0;
        out.println(usedFerry
                ? "Plan: the Ferry run's executed plan has " + ferry.summary().ferryExchanges() + " FerryShuffleExchangeExec (shown as FerryColumnarExchange in EXPLAIN)."
                : "Plan: the Ferry run did NOT use Ferry's exchange; its plan:\n" + ferry.plan());
        out.println(same ? "Results: identical (" + rowsFerry + " rows)." : "Results: DIFFERENT (" + rowsFerry + " rows with Ferry, " + rowsSpark + " with Spark).");
        return same && usedFerry ? 0 : 1;
    }

    /** One ETL run, with its wall time, executed plan and what its shuffles did. */
    private record Run(Path output, long millis, String plan, ShuffleSummary summary)
    {
    }

    private static Run etl(SparkSession spark, ExecutedPlans plans, boolean ferry, Path input, Path output)
            throws InterruptedException
    {
        spark.conf().set("spark.ferry.enabled", String.valueOf(ferry));
        try {
            plans.clear();
            long started = System.nanoTime();
            EtlPipeline.run(spark, input, output);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            SparkPlan plan = plans.nextWithShuffle();
            return new Run(output, millis, plan.toString(), ShuffleSummary.of(plan));
        }
        finally {
            spark.conf().set("spark.ferry.enabled", "true");
        }
    }

    private void progress(String line)
    {
        step++;
        out.println("[" + step + "/" + STEPS + "] " + line);
    }

    /** The topology as given, else relative to the repository this class was built in (bin/ferry runs from any directory). */
    private static Path resolveTopology(Path topology)
    {
        if (Files.isRegularFile(topology) || topology.isAbsolute()) {
            return topology;
        }
        try {
            // examples/target/classes -> the repository root
            Path classes = Path.of(DemoCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path module = classes.getParent() == null ? null : classes.getParent().getParent();
            Optional<Path> candidate = Optional.ofNullable(module).map(Path::getParent).map(root -> root.resolve(topology));
            if (candidate.isPresent() && Files.isRegularFile(candidate.get())) {
                return candidate.get();
            }
        }
        catch (URISyntaxException | RuntimeException e) {
            // fall through: the loader reports the path as given
        }
        return topology;
    }

    private static String seconds(long millis)
    {
        return String.format(Locale.ROOT, "%.2fs", millis / 1000.0);
    }

    private static long size(Path directory)
            throws IOException
    {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(Files::isRegularFile).mapToLong(file -> {
                try {
                    return Files.size(file);
                }
                catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).sum();
        }
    }

    private static String megabytes(long bytes)
    {
        return String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
    }

    private static void deleteRecursively(Path directory)
            throws IOException
    {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
