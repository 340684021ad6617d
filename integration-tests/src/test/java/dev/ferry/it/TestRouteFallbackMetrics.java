package dev.ferry.it;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.ferry.shuffle.ExchangeMetrics;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import scala.Option;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Per-peer route fallbacks as SQL metrics of Ferry's exchange (issue 17): the two-node DGX topology
 * with {@code stage=device} on the simulated backend, but the simulated NICs load no peer memory
 * ({@code spark.ferry.transport.simulated.peermem=false}), so a serving executor's NIC cannot
 * register its GPU memory: it answers each cross-node reader's GPUDIRECT_RDMA request with a route
 * refusal (no fetch failure, no map rerun), and each reader falls back for that peer to
 * RDMA_HOST_STAGED. The query still equals Spark's own shuffle; the exchange's
 * {@code route fallbacks GPUDIRECT_RDMA->RDMA_HOST_STAGED} counts the steps (at most one per reader
 * and cross-node peer), the total equals the per-step sum, and every step that did not happen
 * (same-node IPC works here: PEER_GPU_D2H->HOST_STAGED) is 0.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestRouteFallbackMetrics
{
    private SparkSession spark;

    @BeforeAll
    void start()
            throws InterruptedException
    {
        spark = TopologyClusters.start(TopologyClusters.exampleTopology("dgx-h100-ib-2node"), "device", Map.of(
                "spark.ferry.device", "simulated",
                "spark.ferry.transport.simulated.peermem", "false",
                "spark.ferry.metrics.level", "moderate"));
    }

    @AfterAll
    void stop()
    {
        if (spark != null) {
            spark.stop();
        }
    }

    @Test
    void gpuMemoryTheNicCannotRegisterIsCountedAsAFallbackStepOfTheExchange()
    {
        QueryComparison.FerryRun run = QueryComparison.assertSameAsSpark(spark,
                "SELECT id % 97 AS k, count(*) AS c, sum(id) AS total, max(concat('v', id)) AS top FROM range(0, 120000, 1, 8) GROUP BY id % 97", false);
        Map<String, Long> steps = new HashMap<>();
        long total = 0;
        List<SparkPlan> exchanges = Plans.ferryExchanges(run.dataset().queryExecution().executedPlan());
        assertTrue(!exchanges.isEmpty(), run.plan());
        for (SparkPlan exchange : exchanges) {
            Option<SQLMetric> all = exchange.metrics().get(ExchangeMetrics.ROUTE_FALLBACKS);
            assertTrue(all.isDefined(), "the total is listed at every level: " + exchange.metrics().keySet());
            total += all.get().value();
            for (String step : ExchangeMetrics.FALLBACK_STEPS) {
                Option<SQLMetric> metric = exchange.metrics().get(ExchangeMetrics.fallbackKey(step));
                // moderate lists the steps between routes the topology can use: all of them on this DGX pair.
                assertTrue(metric.isDefined(), step + " is listed at moderate: " + exchange.metrics().keySet());
                steps.merge(step, metric.get().value(), Long::sum);
            }
        }
        System.out.println("route fallbacks: " + total + " " + steps);
        Map<String, Long> routes = TopologyClusters.routeBytes(run);
        long refused = steps.get("GPUDIRECT_RDMA->RDMA_HOST_STAGED");
        // Four readers, each with two executors on the other node: at least one refusal, at most one per pair.
        assertTrue(refused >= 1 && refused <= 8, "GPUDIRECT_RDMA->RDMA_HOST_STAGED " + refused + ": " + steps);
        assertEquals(refused, total, "the total is the sum of the steps: " + steps);
        steps.forEach((step, count) -> {
            if (!step.equals("GPUDIRECT_RDMA->RDMA_HOST_STAGED")) {
                assertEquals(0L, count, step + " did not happen: " + steps);
            }
        });
        assertTrue(routes.get("RDMA_HOST_STAGED") > 0, "the refused blocks came over RDMA_HOST_STAGED: " + routes);
        assertEquals(0L, routes.get("GPUDIRECT_RDMA"), "no NIC could register GPU memory: " + routes);
        assertTrue(routes.get("PEER_GPU_D2H") > 0, "same-node peers still read the GPU blocks over IPC: " + routes);
    }
}
