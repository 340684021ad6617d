package dev.ferry.examples.demo;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.examples.demo.DemoQueries.Query;
import dev.ferry.examples.demo.QueryRunner.Mode;
import dev.ferry.examples.launch.SparkJvm;
import dev.ferry.shuffle.placement.ExecutorPlace;
import dev.ferry.shuffle.placement.ExecutorPlacements;
import dev.ferry.topology.file.TopologyFileReader;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.report.DecisionReport;
import dev.ferry.topology.report.LinkTraffic;
import dev.ferry.topology.report.SummaryReport;
import dev.ferry.topology.route.RoutePolicy;
import dev.ferry.topology.route.RoutePolicyConfig;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.status.api.v1.ExecutorSummary;
import scala.jdk.javaapi.CollectionConverters;

/**
 * {@code bin/ferry demo}: on one machine, with no cluster and no GPU, shows what Ferry does. Four
 * executor JVMs ({@code local-cluster}) are placed on the simulated two-node GPU cluster of a topology
 * file, with the simulated device backend; a star-schema dataset is generated as Parquet (once per
 * size, cached); a handful of shuffle-heavy queries run with Ferry (the {@code gds} reader, Ferry's
 * exchange over the routes the topology decides) and again with Spark's own reader and sort
 * shuffle. It prints the route decisions, each query's times and ratio, bytes per route, bytes
 * written by both shuffles, whether the results agree, and writes an HTML report with the cluster
 * drawn and each link annotated with the bytes it carried.
 * Exit codes: 0 same results, 1 different results or a failure, 2 bad arguments.
 */
public final class DemoCommand
{
    private final PrintStream out;
    private final int steps;
    private int step;

    private DemoCommand(PrintStream out, int steps)
    {
        this.out = out;
        this.steps = steps;
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
            // topology, Spark, data, warm-up, one per query, report
            int steps = 5 + DemoQueries.ALL.size();
            exitCode = new DemoCommand(new PrintStream(System.out, true, StandardCharsets.UTF_8), steps).run(arguments);
        }
        catch (Exception e) {
            System.err.println("ferry demo: failed: " + e);
            e.printStackTrace(System.err);
            exitCode = 1;
        }
        System.exit(exitCode);
    }

    private int run(DemoArguments arguments)
            throws IOException, InterruptedException
    {
        long started = System.nanoTime();
        out.println("Ferry demo: " + DemoQueries.ALL.size() + " shuffle-heavy queries on a simulated GPU cluster, with Ferry and with Spark alone");
        Path topologyFile = RepositoryPaths.resolve(arguments.topology());
        progress("Route decisions for " + arguments.topology());
        ClusterTopology cluster = TopologyFileReader.load(topologyFile);
        DecisionReport decisions = DecisionReport.decide(cluster, new RoutePolicy(RoutePolicyConfig.from(new MapConfigSource(Map.of()))));
        String topologySummary = SummaryReport.render(decisions);
        out.print(topologySummary);
        out.println("  (every decision with its reason: bin/ferry topology --verbose --topology " + arguments.topology() + ")");

        Path directory = Files.createDirectories(arguments.directory().orElseGet(() -> RepositoryPaths.resolve(Path.of(DemoArguments.DEFAULT_DIRECTORY))));
        progress("Starting Spark " + arguments.master() + " with Ferry's plugin, executors placed on " + cluster.name() + " (simulated GPUs)");
        SparkSession spark = DemoSession.start(arguments.master(), topologyFile);
        ExecutorRouteBytes routeBytes = new ExecutorRouteBytes();
        spark.sparkContext().addSparkListener(routeBytes);
        try {
            Map<String, LinkTraffic.Place> places = places(spark, cluster);
            places.forEach((executor, place) -> out.println("  executor " + executor + " on " + place.host() + place.gpu().map(gpu -> ":" + gpu).orElse("")));
            DemoResults results = queries(spark, arguments, directory, routeBytes);
            LinkTraffic.Attribution traffic = LinkTraffic.attribute(decisions, places, routeBytes.snapshot());
            new DemoSummary(out).print(results, routeBytes.unreadableUpdates());
            Path report = directory.resolve("report.html");
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
            Files.writeString(report, DemoReport.html(arguments, decisions, topologySummary, places, results, routeBytes.snapshot(), traffic, seconds));
            out.println();
            out.println("Report (tables and the cluster drawn with the bytes each link carried): " + report.toAbsolutePath().normalize());
            return results.allAgree() ? 0 : 1;
        }
        finally {
            spark.stop();
        }
    }

    private DemoResults queries(SparkSession spark, DemoArguments arguments, Path directory, ExecutorRouteBytes routeBytes)
            throws IOException
    {
        DemoSize size = arguments.size();
        Path data = StarSchema.location(directory.resolve("data"), size.lineitemRows());
        String rows = String.format(Locale.ROOT, "%,d lineitem, %,d orders, %,d customers, %,d parts", size.lineitemRows(), StarSchema.orders(size.lineitemRows()),
                StarSchema.customers(size.lineitemRows()), StarSchema.parts(size.lineitemRows()));
        if (StarSchema.isComplete(data)) {
            progress("Data: reusing " + size.label() + " (" + rows + ") cached in " + data);
        }
        else {
            progress("Data: generating " + size.label() + " (" + rows + ") in " + data);
            StarSchema.generate(spark, data, size.lineitemRows());
        }
        Map<String, Long> tableBytes = new LinkedHashMap<>();
        for (String table : StarSchema.TABLES) {
            tableBytes.put(table, FileSizes.of(data.resolve(table)));
        }
        out.println("  " + FileSizes.megabytes(tableBytes.values().stream().mapToLong(Long::longValue).sum()) + " of Parquet"
                + (arguments.size().label().equals(DemoSize.parse(DemoSize.DEFAULT).label())
                        ? " (the default size: about six minutes on an idle 2-core machine; --size 50m for a quick look, --size 1g for bigger"
                        + " shuffles)" : ""));

        QueryRunner runner = new QueryRunner(spark, data, routeBytes);
        // Both code paths once on a tiny query, so the first timed query does not pay alone for class loading in four JVMs.
        progress("Warming up both paths (one small query each way)");
        String warmup = "SELECT c.segment, count(*) AS c FROM customer c JOIN part p ON c.customer_id = p.part_id GROUP BY c.segment";
        runner.run(warmup, Mode.FERRY);
        runner.run(warmup, Mode.SPARK);

        List<QueryComparison> comparisons = new ArrayList<>();
        int index = 0;
        for (Query query : DemoQueries.ALL) {
            index++;
            progress("Query " + index + "/" + DemoQueries.ALL.size() + " " + query.name() + " (" + query.shape() + ")");
            QueryRunner.Run ferry = runner.run(query.sql(), Mode.FERRY);
            QueryRunner.Run plain = runner.run(query.sql(), Mode.SPARK);
            QueryComparison comparison = new QueryComparison(query, ferry, plain);
            comparisons.add(comparison);
            out.printf(Locale.ROOT, "  Ferry %s, Spark %s (%.2fx), %d rows, %s%n", FileSizes.seconds(ferry.millis()), FileSizes.seconds(plain.millis()), comparison.speedup(),
                    ferry.rows().size(), comparison.sameRows() ? "results agree" : "RESULTS DIFFER");
        }
        progress("Writing the report");
        return new DemoResults(size, tableBytes, comparisons);
    }

    /** Each executor's place in the simulated cluster, as Ferry's shuffle assigns it (no placement override in the demo). */
    private static Map<String, LinkTraffic.Place> places(SparkSession spark, ClusterTopology cluster)
    {
        Map<String, LinkTraffic.Place> places = new TreeMap<>();
        for (ExecutorSummary executor : CollectionConverters.asJava(spark.sparkContext().statusStore().executorList(true))) {
            boolean onlyDriver = spark.sparkContext().isLocal();
            if (executor.id().equals("driver") && !onlyDriver) {
                continue;
            }
            String host = executor.hostPort().replaceFirst(":\\d+$", "");
            ExecutorPlace place = ExecutorPlacements.assign(cluster, executor.id(), host, "");
            places.put(executor.id(), new LinkTraffic.Place(place.node(), place.gpu()));
        }
        return places;
    }

    private void progress(String line)
    {
        step++;
        out.println("[" + step + "/" + steps + "] " + line);
    }
}
