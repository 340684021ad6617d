package dev.ferry.it;

import java.util.Map;
import java.util.Set;

import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@link TestTopologyRoutesRoceHost}'s cluster with {@code spark.authenticate} on (crypto off): the
 * RDMA route still carries the cross-node blocks, each reader's queue pairs admitted by a token its
 * peer handed it over the authenticated TCP session, and results equal Spark's own shuffle.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestTopologyRoutesRoceAuthenticated
{
    private SparkSession spark;

    @BeforeAll
    void start()
            throws InterruptedException
    {
        spark = TopologyClusters.start(TopologyClusters.exampleTopology("pcie-roce-2node"), "host", Map.of(
                "spark.ferry.transport.verbs", "simulated",
                "spark.authenticate", "true",
                "spark.authenticate.secret", "rdma-admission-secret"));
    }

    @AfterAll
    void stop()
    {
        if (spark != null) {
            spark.stop();
        }
    }

    @Test
    void crossNodeFetchesGoRdmaThroughAdmittedQueuePairs()
    {
        TopologyClusters.assertRoutes(spark, Set.of("HOST_SHM", "RDMA"));
    }
}
