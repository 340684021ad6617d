package dev.ferry.plugin;

import java.util.concurrent.TimeUnit;

import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FerryPluginLocalModeTest
{
    @Test
    void executorReportsItsPlacementToTheDriver()
            throws InterruptedException
    {
        SparkSession spark = SparkSession.builder()
                .master("local[2]")
                .appName("ferry-plugin-test")
                .config("spark.plugins", "dev.ferry.FerryPlugin")
                .config("spark.ui.enabled", "false")
                .getOrCreate();
        try {
            assertEquals(10L, spark.range(10).count());
            ClusterRegistry registry = FerryDriverPlugin.active().orElseThrow();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (registry.executors().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            ExecutorPlacement placement = registry.executor("driver").orElseThrow(() -> new AssertionError("no placement from the local executor"));
            assertTrue(placement.nodeTopologyJson().contains("\"hostname\""), placement.nodeTopologyJson());
            // This machine has no GPU: the summary must say so with the probe's reason, not stay silent.
            assertTrue(placement.summary().contains("GPU"), placement.summary());
        }
        finally {
            spark.stop();
        }
        assertTrue(FerryDriverPlugin.active().isEmpty(), "registry cleared at shutdown");
    }
}
