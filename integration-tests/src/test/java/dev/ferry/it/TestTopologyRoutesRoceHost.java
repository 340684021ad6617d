package dev.ferry.it;

import java.util.Map;
import java.util.Set;

import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * examples/topologies/pcie-roce-2node.json with {@code spark.ferry.shuffle.stage=host}: four executor
 * JVMs, two per node. Host-resident blocks go HOST_SHM within a node and RDMA (one-sided READs over
 * the simulated verbs layer, registered where the store keeps them) between nodes; no other route
 * carries a byte, and results equal Spark's own shuffle.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestTopologyRoutesRoceHost
{
    private SparkSession spark;

    @BeforeAll
    void start()
            throws InterruptedException
    {
        spark = TopologyClusters.start(TopologyClusters.exampleTopology("pcie-roce-2node"), "host", Map.of("spark.ferry.transport.verbs", "simulated"));
    }

    @AfterAll
    void stop()
    {
        if (spark != null) {
            spark.stop();
        }
    }

    @Test
    void sameNodeFetchesGoHostShmAndCrossNodeFetchesRdma()
    {
        TopologyClusters.assertRoutes(spark, Set.of("HOST_SHM", "RDMA"));
    }
}
