package dev.ferry.it;

import java.nio.file.Path;
import java.util.Map;

import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The same device repartition as {@link TestDeviceRepartitionLocalCluster} on simulated NICs
 * without peer memory ({@code spark.ferry.transport.simulated.peermem=false}): the topology still
 * decides GPUDIRECT_RDMA across the nodes, the serving NICs refuse to register their GPU memory,
 * and those pieces come through the shuffle transport and host memory instead, counted as
 * host-staged bytes of GPUDIRECT_RDMA; the results are still Spark's, and same-node pieces still
 * move NVLINK with nothing staged.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestDeviceRepartitionRefusedRdma
{
    private SparkSession spark;

    @BeforeAll
    void start()
            throws InterruptedException
    {
        spark = TopologyClusters.start(TopologyClusters.exampleTopology("dgx-h100-ib-2node"), "device", Map.of(
                "spark.ferry.device", "simulated",
                "spark.ferry.transport.simulated.peermem", "false"));
    }

    @AfterAll
    void stop()
    {
        if (spark != null) {
            spark.stop();
        }
    }

    @Test
    void piecesWhoseNicRefusesGpuMemoryComeHostStagedAndCounted(@TempDir Path directory)
    {
        DeviceRepartitionRun.Routes routes = DeviceRepartitionRun.runAndCompare(spark, directory);
        Map<String, Long> bytes = routes.bytes();
        assertEquals(0L, bytes.getOrDefault("GPUDIRECT_RDMA", 0L), routes.detail());
        long staged = routes.staged().getOrDefault("GPUDIRECT_RDMA", 0L);
        assertTrue(staged > 0, "cross-node pieces were staged through host memory: " + routes.detail());
        assertEquals(staged, bytes.getOrDefault("HOST_STAGED", 0L), "every staged byte is counted on HOST_STAGED: " + routes.detail());
        assertTrue(bytes.getOrDefault("NVLINK", 0L) > 0, routes.detail());
        assertEquals(0L, routes.staged().getOrDefault("NVLINK", 0L), routes.detail());
    }
}
