package dev.ferry.it;

import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * One fault test in local-cluster over simulated RDMA: a fresh cluster per fault (a fault fires once
 * per cluster, recorded in a marker file), then one shuffle query whose fetch the fault breaks. The
 * fetch must fail, Spark must get a FetchFailedException and rerun the map stage, and the result must
 * equal Spark's own shuffle. Each subclass names the fault; each is its own class so that each gets
 * its own cluster and its own line in the test report.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class TransportFaultTest
{
    private final String fault;
    private SparkSession spark;
    private Path onceFile;

    TransportFaultTest(String fault)
    {
        this.fault = fault;
    }

    @BeforeAll
    void start()
            throws Exception
    {
        onceFile = Files.createTempDirectory("ferry-fault-").resolve("fired");
        spark = TransportFaultClusters.start(fault, onceFile);
    }

    @AfterAll
    void stop()
    {
        if (spark != null) {
            spark.stop();
        }
    }

    /** The running session (for checks a subclass adds after the fault). */
    protected SparkSession spark()
    {
        return spark;
    }

    @Test
    @Order(1)
    void theFaultEndsInAStageRerunWithTheRightResult()
            throws Exception
    {
        TransportFaultClusters.assertRerunWithCorrectResult(spark, onceFile);
    }
}
