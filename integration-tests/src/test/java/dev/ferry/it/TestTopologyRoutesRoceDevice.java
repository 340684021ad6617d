package dev.ferry.it;

import java.util.Map;
import java.util.Set;

import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * examples/topologies/pcie-roce-2node.json (RoCE, no peer memory) with
 * {@code spark.ferry.shuffle.stage=device} on the simulated device backend. The executors are placed
 * on GPU0 and GPU2 of each node, which sit under different CPU sockets (SYS): the matrix says
 * HOST_STAGED for that pair, and without nvidia_peermem GPU blocks cross nodes RDMA_HOST_STAGED.
 * Each expected route carries bytes, no other remote route any, and results equal Spark's own shuffle.
 * The simulated backend simulates the node's four GPUs, since each executor's store sits on the GPU
 * it is placed on (GPU2 is CUDA device 2).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestTopologyRoutesRoceDevice
{
    private SparkSession spark;

    @BeforeAll
    void start()
            throws InterruptedException
    {
        spark = TopologyClusters.start(TopologyClusters.exampleTopology("pcie-roce-2node"), "device", Map.of(
                "spark.ferry.device", "simulated",
                "spark.ferry.device.simulated.count", "4",
                "spark.ferry.shuffle.executorPlacement", "0=pcie-a:GPU0,1=pcie-b:GPU0,2=pcie-a:GPU2,3=pcie-b:GPU2"));
    }

    @AfterAll
    void stop()
    {
        if (spark != null) {
            spark.stop();
        }
    }

    @Test
    void sameNodeGpuBlocksGoHostStagedAndCrossNodeRdmaHostStaged()
    {
        TopologyClusters.assertRoutes(spark, Set.of("HOST_STAGED", "RDMA_HOST_STAGED"));
    }
}
