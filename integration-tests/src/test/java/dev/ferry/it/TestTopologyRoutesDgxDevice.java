package dev.ferry.it;

import java.util.Map;
import java.util.Set;

import dev.ferry.shuffle.ExchangeMetrics;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * examples/topologies/dgx-h100-ib-2node.json (NVSwitch, one NDR InfiniBand NIC per GPU,
 * nvidia_peermem loaded) with {@code spark.ferry.shuffle.stage=device} on the simulated device
 * backend: the serving executor lends each block's device buffer from its store. Same-node peers
 * open its CUDA IPC handle on their own GPU and copy the block into host memory for Spark's CPU
 * reduce: one D->H out of the serving GPU (PEER_GPU_D2H; the topology's NVLink carries nothing for a
 * CPU consumer); other nodes' peers READ its registered
 * GPU memory into their own (GPUDIRECT_RDMA, the simulated NIC honouring the topology's peer memory).
 * Each expected route carries bytes, no other remote route any (nothing host-staged: the blocks stay
 * on the GPU), and results equal Spark's own shuffle. Every route works here, so the exchange's route
 * fallbacks are 0 (TestRouteFallbackMetrics: the same cluster whose NICs cannot register GPU memory).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestTopologyRoutesDgxDevice
{
    private SparkSession spark;

    @BeforeAll
    void start()
            throws InterruptedException
    {
        spark = TopologyClusters.start(TopologyClusters.exampleTopology("dgx-h100-ib-2node"), "device", Map.of(
                "spark.ferry.device", "simulated"));
    }

    @AfterAll
    void stop()
    {
        if (spark != null) {
            spark.stop();
        }
    }

    @Test
    void sameNodeGpuBlocksArePeerGpuReadsAndCrossNodeGpudirectRdma()
    {
        TopologyClusters.assertRoutes(spark, Set.of("PEER_GPU_D2H", "GPUDIRECT_RDMA"));
    }

    @Test
    void noRouteFallsBackWhereEveryRouteWorks()
    {
        QueryComparison.FerryRun run = QueryComparison.assertSameAsSpark(spark,
                "SELECT id % 13 AS k, count(*) AS c FROM range(0, 60000, 1, 8) GROUP BY id % 13", false);
        for (SparkPlan exchange : Plans.ferryExchanges(run.dataset().queryExecution().executedPlan())) {
            // Listed at the default level (essential), where the per-step counters are not.
            org.junit.jupiter.api.Assertions.assertEquals(0L, exchange.metrics().get(ExchangeMetrics.ROUTE_FALLBACKS).get().value(), run.plan());
            org.junit.jupiter.api.Assertions.assertTrue(scala.jdk.javaapi.CollectionConverters.asJava(exchange.metrics()).keySet().stream()
                    .noneMatch(key -> key.matches("ferryFallback[A-Z_0-9]+To[A-Z_0-9]+")), run.plan());
        }
    }
}
