package dev.ferry.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.spark.FetchFailed;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.SparkSession;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A simulated two-node RoCE cluster (pcie-roce-2node, {@code stage=host}: cross-node blocks go RDMA
 * over the simulated verbs layer) whose NICs carry one test fault
 * ({@code spark.ferry.transport.test.faultInjection}), fired once across the whole cluster (the
 * once-file), so exactly one READ is spoiled and the rerun sees none.
 */
final class TransportFaultClusters
{
    private TransportFaultClusters() {}

    /** Counts what the scheduler did about the fault: fetch failures and resubmitted stage attempts. */
    static final class Reruns
            extends SparkListener
    {
        final AtomicInteger fetchFailures = new AtomicInteger();
        final AtomicInteger stageRetries = new AtomicInteger();
        // Where the transport and the reader name the block a failure hit.
        private static final Pattern FAILED_BLOCK = Pattern.compile("(?:READ(?: \\([A-Z_]+\\))? of|Corrupt block|Receiving|Transfer of) (shuffle_\\d+_\\d+_\\d+)");

        final List<String> misattributed = new CopyOnWriteArrayList<>();

        @Override
        public void onTaskEnd(SparkListenerTaskEnd taskEnd)
        {
            if (taskEnd.reason() instanceof FetchFailed failed) {
                fetchFailures.incrementAndGet();
                // A failure the transport pinned on a block must be reported for that block, so Spark
                // reruns that map output (a whole-peer failure, e.g. a refused connect, names none).
                String block = "shuffle_" + failed.shuffleId() + "_" + failed.mapId() + "_" + failed.reduceId();
                Matcher named = FAILED_BLOCK.matcher(String.valueOf(failed.message()));
                if (named.find() && !named.group(1).equals(block)) {
                    misattributed.add(block + " reported, " + named.group(1) + " failed: " + failed.message());
                }
            }
        }

        @Override
        public void onStageSubmitted(SparkListenerStageSubmitted submitted)
        {
            if (submitted.stageInfo().attemptNumber() > 0) {
                stageRetries.incrementAndGet();
            }
        }
    }

    static SparkSession start(String fault, Path onceFile)
            throws InterruptedException
    {
        return TopologyClusters.start(TopologyClusters.exampleTopology("pcie-roce-2node"), "host", Map.of(
                "spark.ferry.transport.verbs", "simulated",
                "spark.ferry.transport.test.faultInjection", fault,
                "spark.ferry.transport.test.faultInjection.onceFile", onceFile.toString(),
                // A lost executor is relaunched by its worker; keep the rerun quick.
                "spark.ferry.shuffle.tcp.timeoutMillis", "20000"));
    }

    /**
     * Runs a cross-node aggregate with Ferry and with Spark's shuffle: the results must be equal
     * (the spoiled READ never becomes a wrong row), the fault must have fired, and the scheduler
     * must have seen a fetch failure and rerun a stage.
     */
    static void assertRerunWithCorrectResult(SparkSession spark, Path onceFile)
            throws Exception
    {
        Reruns reruns = new Reruns();
        spark.sparkContext().addSparkListener(reruns);
        QueryComparison.FerryRun run = QueryComparison.assertSameAsSpark(spark,
                "SELECT id % 97 AS k, count(*) AS c, sum(id) AS total, max(concat('v', id)) AS top FROM range(0, 120000, 1, 8) GROUP BY id % 97", false);
        spark.sparkContext().listenerBus().waitUntilEmpty(60_000);
        assertTrue(Files.exists(onceFile), "the test fault never fired (no READ crossed nodes?)\n" + run.plan());
        assertTrue(reruns.fetchFailures.get() > 0, "the spoiled READ did not become a FetchFailedException");
        assertTrue(reruns.stageRetries.get() > 0, "no stage was rerun after the fetch failure");
        assertTrue(reruns.misattributed.isEmpty(), "FetchFailed for another block than the one that failed: " + reruns.misattributed);
        assertTrue(TopologyClusters.routeBytes(run).get("RDMA") > 0, "no bytes went RDMA: " + TopologyClusters.routeBytes(run));
    }
}
