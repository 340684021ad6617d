package dev.ferry.it;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nodes without RDMA: two copies of examples/topologies/tcp-only-node.json, four executor JVMs
 * (two per simulated node), host-resident map outputs. Fetches between executors of one node go
 * HOST_SHM (only handles cross the socket), between nodes TCP; no other route carries a byte, and
 * results equal Spark's own shuffle.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestTopologyRoutesTcpOnly
{
    @TempDir
    static Path directory;

    private SparkSession spark;

    @BeforeAll
    void start()
            throws IOException, InterruptedException
    {
        Path topology = TopologyClusters.twoNodesOf(TopologyClusters.exampleTopology("tcp-only-node"), directory);
        spark = TopologyClusters.start(topology, "host", Map.of());
    }

    @AfterAll
    void stop()
    {
        if (spark != null) {
            spark.stop();
        }
    }

    @Test
    void sameNodeFetchesGoHostShmAndCrossNodeFetchesTcp()
    {
        TopologyClusters.assertRoutes(spark, Set.of("HOST_SHM", "TCP"));
    }
}
