package dev.ferry.plugin;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.ferry.plugin.explain.ExplainRegistration;
import dev.ferry.shuffle.exchange.FerryShuffleExchangeExec;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.FormattedMode$;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.jdk.javaapi.CollectionConverters;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a data engineer sees in local mode with the plugin: the "Ferry" section of EXPLAIN on the
 * plan before execution (AQE on), for a plan Ferry takes and one it refuses, and the metrics an
 * exchange lists at each spark.ferry.metrics.level.
 */
class TestExplainAndMetrics
{
    private static SparkSession spark;

    @BeforeAll
    static void start()
            throws InterruptedException
    {
        // As spark-submit --conf passes it (a SparkConf value, not a session builder option): the plugin appends to it.
        System.setProperty(ExplainRegistration.PROVIDERS, TheirExplain.class.getName());
        spark = SparkSession.builder()
                .master("local[2]")
                .appName("ferry-explain-test")
                .config("spark.plugins", "dev.ferry.FerryPlugin")
                .config("spark.shuffle.manager", "dev.ferry.shuffle.FerryShuffleManager")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.adaptive.enabled", "true")
                .config("spark.sql.shuffle.partitions", "4")
                .getOrCreate();
        System.clearProperty(ExplainRegistration.PROVIDERS);
        // The local executor's probed node decides which routes the metrics list: wait for its report.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (FerryDriverPlugin.active().orElseThrow().view().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
    }

    @AfterAll
    static void stop()
    {
        spark.stop();
    }

    @Test
    void thePluginAppendsItsProviderToTheUsersList()
    {
        String ferry = "dev.ferry.plugin.explain.FerryExplainGenerator";
        assertEquals(TheirExplain.class.getName() + "," + ferry, spark.sparkContext().conf().get(ExplainRegistration.PROVIDERS));
        assertEquals(TheirExplain.class.getName() + "," + ferry, spark.conf().get(ExplainRegistration.PROVIDERS), "the session sees it");
        assertEquals(ferry, ExplainRegistration.withFerry(""));
        assertEquals("a, " + ferry, ExplainRegistration.withFerry("a, " + ferry), "listed once");
        String explain = groupBy().queryExecution().explainString(FormattedMode$.MODULE$);
        assertTrue(explain.contains("== Extended Information (Theirs) ==\ntheirs"), explain);
        assertTrue(explain.contains("== Extended Information (Ferry) ==\n"), explain);
    }

    @Test
    void explainBeforeExecutionSaysFerryTakesTheExchange()
    {
        String explain = groupBy().queryExecution().explainString(FormattedMode$.MODULE$);
        System.out.println("EXPLAIN FORMATTED, Ferry takes it:\n" + explain);
        assertTrue(explain.contains("Arguments: isFinalPlan=false"), "the plan before execution: " + explain);
        String ferry = section(explain);
        assertTrue(ferry.startsWith("Ferry takes 1 of 1 exchanges and 0 of 0 file scans\n"), ferry);
        assertTrue(ferry.contains("  exchange Exchange hashpartitioning(_groupingexpression#"), ferry);
        assertTrue(ferry.contains(": Ferry, Arrow columnar exchange"), ferry);
    }

    @Test
    void explainBeforeExecutionSaysWhyFerryRefusesTheExchange()
    {
        spark.conf().set("spark.sql.shuffle.orderIndependentChecksum.enabled", "true");
        try {
            String explain = groupBy().queryExecution().explainString(FormattedMode$.MODULE$);
            System.out.println("EXPLAIN FORMATTED, Ferry refuses it:\n" + explain);
            String ferry = section(explain);
            assertTrue(ferry.startsWith("Ferry takes 0 of 1 exchanges"), ferry);
            assertTrue(ferry.contains(": Spark, spark.sql.shuffle.orderIndependentChecksum.enabled=true is not supported"), ferry);
        }
        finally {
            spark.conf().unset("spark.sql.shuffle.orderIndependentChecksum.enabled");
        }
        spark.conf().set("spark.ferry.enabled", "false");
        try {
            String ferry = section(groupBy().queryExecution().explainString(FormattedMode$.MODULE$));
            assertTrue(ferry.contains(": Spark, spark.ferry.enabled=false"), ferry);
        }
        finally {
            spark.conf().unset("spark.ferry.enabled");
        }
    }

    @Test
    void explainMarksTheGdsScanAndSaysWhySparksParquetScanIsNotFerrys(@TempDir Path directory)
    {
        String path = directory.resolve("numbers").toString();
        spark.range(0, 100, 1, 2).write().parquet(path);
        String gds = section(spark.read().format("gds").load(path).groupBy(col("id").mod(3)).count().queryExecution().explainString(FormattedMode$.MODULE$));
        System.out.println("gds scan:\n" + gds);
        assertTrue(gds.startsWith("Ferry takes 1 of 1 exchanges and 1 of 1 file scans\n"), gds);
        assertTrue(gds.contains(": Ferry, gds reader, route=HOST (CPU consumer)"), gds);
        String parquet = section(spark.read().parquet(path).queryExecution().explainString(FormattedMode$.MODULE$));
        System.out.println("parquet scan:\n" + parquet);
        assertTrue(parquet.startsWith("Ferry takes 0 of 0 exchanges and 0 of 1 file scans\n"), parquet);
        assertTrue(parquet.contains("  scan Scan parquet file:" + path + ": Spark, Spark's Parquet reader (spark.read.format(\"gds\") reads it with Ferry's)"), parquet);
    }

    @Test
    void anExchangeListsItsMetricsPerLevel()
    {
        List<String> essential = metricsAt("essential");
        List<String> moderate = metricsAt("moderate");
        List<String> debug = metricsAt("debug");
        System.out.println("essential (" + essential.size() + "): " + essential + "\nmoderate (" + moderate.size() + "): " + moderate + "\ndebug (" + debug.size() + "): "
                + debug);
        // This machine: no GPU, no RDMA NIC, so only the routes of one host and TCP.
        assertEquals(List.of("dataSize", "ferrySpillSize", "ferryCorruptBlocks", "ferryFallbacks",
                "ferryRouteLOCALBytes", "ferryRouteLOCALBlocks",
                "ferryRouteHOST_SHMBytes", "ferryRouteHOST_SHMBlocks", "ferryRouteHOST_SHMFetchWait",
                "ferryRouteTCPBytes", "ferryRouteTCPBlocks", "ferryRouteTCPFetchWait",
                "shuffleBytesWritten", "shuffleRecordsWritten", "shuffleWriteTime",
                "fetchWaitTime", "recordsRead"), essential, "in this order");
        assertTrue(moderate.containsAll(essential), moderate.toString());
        assertTrue(moderate.contains("ferryMemorySpilled") && moderate.contains("remoteBytesRead") && moderate.contains("localBlocksFetched"), moderate.toString());
        assertTrue(moderate.stream().noneMatch(name -> name.startsWith("ferryRouteRDMA") || name.startsWith("ferryRouteNVLINK")), moderate.toString());
        // Fallback steps: none at essential (only their total), those between usable routes at moderate, all at debug.
        assertTrue(essential.stream().noneMatch(TestExplainAndMetrics::isFallbackStep), essential.toString());
        assertEquals(List.of("ferryFallbackHOST_SHMToTCP"), moderate.stream().filter(TestExplainAndMetrics::isFallbackStep).toList(), moderate.toString());
        assertEquals(8, debug.stream().filter(TestExplainAndMetrics::isFallbackStep).count(), debug.toString());
        assertTrue(debug.contains("ferryFallbackNVLINKToHOST_STAGED") && debug.contains("ferryFallbackGPUDIRECT_RDMAToRDMA_HOST_STAGED"), debug.toString());
        assertEquals(List.of(17, 28, 59), List.of(essential.size(), moderate.size(), debug.size()), "the counts docs/deploying.md gives");
        assertTrue(essential.stream().noneMatch(name -> name.startsWith("ferryMapCodec")), essential.toString());
        assertTrue(moderate.containsAll(List.of("ferryMapCodecNONE", "ferryMapCodecLZ4", "ferryMapCodecZSTD")), moderate.toString());
        assertTrue(debug.contains("ferryRouteNVLINKBytes") && debug.contains("ferryRouteGPUDIRECT_RDMAFetchWait"), debug.toString());
        for (List<String> level : List.of(essential, moderate, debug)) {
            assertTrue(level.stream().noneMatch(name -> name.toLowerCase(java.util.Locale.ROOT).contains("merged")), "no push-merge counters: " + level);
        }
        assertEquals(11 * 3 - 1, debug.stream().filter(name -> name.startsWith("ferryRoute")).count(), debug.toString());
    }

    @Test
    void theExchangeSaysItsCodecAndCountsWhatEachMapTaskWroteWith()
    {
        spark.conf().set("spark.ferry.metrics.level", "moderate");
        try {
            assertCodec(null, "codec=zstd", "ferryMapCodecZSTD");
            spark.conf().set("spark.ferry.shuffle.compression.codec", "lz4");
            assertCodec("lz4", "codec=lz4", "ferryMapCodecLZ4");
            spark.conf().set("spark.ferry.shuffle.compression.codec", "auto");
            assertCodec("auto", "codec=auto (lz4 or zstd per map task's link)", null);
        }
        finally {
            spark.conf().unset("spark.ferry.metrics.level");
            spark.conf().unset("spark.ferry.shuffle.compression.codec");
        }
    }

    /** The plan names the codec; the 3 map tasks are counted under {@code counted} (under lz4 or zstd together for auto). */
    private static void assertCodec(String setting, String argument, String counted)
    {
        Dataset<Row> query = groupBy();
        assertEquals(7, query.collectAsList().size());
        FerryShuffleExchangeExec exchange = ferryExchanges(query.queryExecution().executedPlan()).get(0);
        assertTrue(exchange.simpleString(100).contains(", " + argument), setting + ": " + exchange.simpleString(100));
        Map<String, SQLMetric> metrics = CollectionConverters.asJava(exchange.metrics());
        long lz4 = metrics.get("ferryMapCodecLZ4").value();
        long zstd = metrics.get("ferryMapCodecZSTD").value();
        assertEquals(0, metrics.get("ferryMapCodecNONE").value(), setting);
        if (counted == null) {
            assertEquals(3, lz4 + zstd, setting + ": every map task resolved auto to one codec");
            assertTrue(lz4 == 0 || zstd == 0, setting + ": one executor, one link, one decision: lz4 " + lz4 + ", zstd " + zstd);
        }
        else {
            assertEquals(3, metrics.get(counted).value(), setting + ": " + metrics);
            assertEquals(3, lz4 + zstd, setting);
        }
    }

    private static boolean isFallbackStep(String name)
    {
        return name.matches("ferryFallback[A-Z_0-9]+To[A-Z_0-9]+");
    }

    private List<String> metricsAt(String level)
    {
        spark.conf().set("spark.ferry.metrics.level", level);
        try {
            Dataset<Row> query = groupBy();
            assertEquals(7, query.collectAsList().size());
            FerryShuffleExchangeExec exchange = ferryExchanges(query.queryExecution().executedPlan()).get(0);
            return new ArrayList<>(CollectionConverters.asJava(exchange.metrics()).keySet());
        }
        finally {
            spark.conf().unset("spark.ferry.metrics.level");
        }
    }

    private static Dataset<Row> groupBy()
    {
        return spark.range(0, 1000, 1, 3).groupBy(col("id").mod(7)).count();
    }

    private static String section(String explain)
    {
        String title = "== Extended Information (Ferry) ==\n";
        int at = explain.indexOf(title);
        assertTrue(at >= 0, "no Ferry section in:\n" + explain);
        return explain.substring(at + title.length());
    }

    private static List<FerryShuffleExchangeExec> ferryExchanges(SparkPlan plan)
    {
        List<FerryShuffleExchangeExec> found = new ArrayList<>();
        collect(plan, found);
        return found;
    }

    private static void collect(SparkPlan plan, List<FerryShuffleExchangeExec> found)
    {
        if (plan instanceof FerryShuffleExchangeExec exchange) {
            found.add(exchange);
        }
        if (plan instanceof AdaptiveSparkPlanExec adaptive) {
            collect(adaptive.executedPlan(), found);
        }
        else if (plan instanceof QueryStageExec stage) {
            collect(stage.plan(), found);
        }
        for (SparkPlan child : CollectionConverters.asJava(plan.children())) {
            collect(child, found);
        }
    }
}
