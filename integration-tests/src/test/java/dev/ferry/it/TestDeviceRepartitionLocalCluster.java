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
 * Device batches repartitioned across four executor JVMs on the simulated two-node DGX H100
 * cluster ({@code dgx-h100-ib-2node}: executors 0 and 2 on dgx-a GPU0/GPU1, 1 and 3 on dgx-b),
 * device store on the simulated backend: every output partition holds exactly the rows Spark's
 * {@code df.repartition(n, k, s)} puts in the partition with that {@code spark_partition_id()}
 * ({@link DeviceRepartitionRun}), and the blocks moved LOCAL (the reader's own store), NVLINK (peer
 * copies into the reader's GPU, same node) and GPUDIRECT_RDMA (READs into the reader's registered
 * GPU memory, other node), with no byte of any route staged through host memory.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestDeviceRepartitionLocalCluster
{
    private SparkSession spark;

    @BeforeAll
    void start()
            throws InterruptedException
    {
        spark = TopologyClusters.start(TopologyClusters.exampleTopology("dgx-h100-ib-2node"), "device", Map.of("spark.ferry.device", "simulated"));
    }

    @AfterAll
    void stop()
    {
        if (spark != null) {
            spark.stop();
        }
    }

    @Test
    void rowsLandInSparksPartitionsOverTheTopologysDeviceRoutes(@TempDir Path directory)
    {
        DeviceRepartitionRun.Routes routes = DeviceRepartitionRun.runAndCompare(spark, directory);
        Map<String, Long> bytes = routes.bytes();
        assertTrue(bytes.getOrDefault("LOCAL", 0L) > 0, routes.detail());
        assertTrue(bytes.getOrDefault("NVLINK", 0L) > 0, routes.detail());
        assertTrue(bytes.getOrDefault("GPUDIRECT_RDMA", 0L) > 0, routes.detail());
        assertEquals(0L, routes.staged().getOrDefault("NVLINK", 0L), routes.detail());
        assertEquals(0L, routes.staged().getOrDefault("GPUDIRECT_RDMA", 0L), routes.detail());
        assertEquals(0L, bytes.getOrDefault("HOST_STAGED", 0L) + bytes.getOrDefault("RDMA_HOST_STAGED", 0L), "nothing spilled or refused here: " + routes.detail());
    }
}
