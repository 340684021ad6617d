package dev.ferry.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ferry.plugin.ClusterRegistry;
import dev.ferry.plugin.FerryDriverPlugin;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Routes without a topology file: two executor JVMs on this host report a simulated probe (an
 * HGX H100 node from examples/topologies standing in for this machine's NVML and sysfs, through
 * {@code spark.ferry.topology.probeOverride}), the driver merges them into one node, and the
 * device-resident blocks between executor 0 (GPU0) and executor 1 (GPU1) take the GPU pair's IPC
 * route, as the probed pair's NV18 calls for (NVLINK for a device consumer); Spark's CPU reduce reads
 * each block out of the peer's GPU into host memory, so the bytes are counted PEER_GPU_D2H. Without
 * probed routes they would go TCP.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestProbedRoutes
{
    private SparkSession spark;

    @BeforeAll
    void start(@TempDir Path directory)
            throws InterruptedException, IOException
    {
        Path probe = oneNodeOf(TopologyClusters.exampleTopology("dgx-h100-ib-2node"), directory);
        spark = FerrySessions.builder("local-cluster[2,1,1024]")
                .config("spark.plugins", "dev.ferry.FerryPlugin")
                .config("spark.executor.memory", "768m")
                .config("spark.executorEnv.SPARK_SCALA_VERSION", "2.13")
                .config("spark.executorEnv.SPARK_TESTING", "1")
                .config("spark.executor.extraClassPath", System.getProperty("java.class.path"))
                .config("spark.executor.extraJavaOptions", FerrySessions.EXECUTOR_JVM_OPTIONS + " -Xss4m")
                .config("spark.ferry.topology.probeOverride", probe.toString())
                .config("spark.ferry.shuffle.stage", "device")
                .config("spark.ferry.device", "simulated")
                .config("spark.locality.wait", "0s")
                .getOrCreate();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (spark.sparkContext().statusTracker().getExecutorInfos().length < 3) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Executors did not start within 120 s");
            }
            Thread.sleep(100);
        }
    }

    @AfterAll
    void stop()
    {
        if (spark != null) {
            spark.stop();
        }
    }

    @Test
    void sameHostGpuBlocksTakeTheGpuPairRouteFromTheReportedProbes()
    {
        TopologyClusters.assertRoutes(spark, Set.of("PEER_GPU_D2H"));
        ClusterRegistry registry = FerryDriverPlugin.active().orElseThrow();
        assertEquals(1, registry.view().orElseThrow().nodes().size(), "both executors' reports merged into one node: " + registry.view());
        assertEquals(8, registry.view().orElseThrow().nodes().get(0).gpus().size());
        assertTrue(registry.executors().size() >= 2, "both executors reported: " + registry.executors().keySet());
    }

    /** The first node of a topology file, alone in a file of its own: the stand-in for one machine's probes. */
    private static Path oneNodeOf(Path topology, Path directory)
            throws IOException
    {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode cluster = (ObjectNode) mapper.readTree(topology.toFile());
        ArrayNode nodes = (ArrayNode) cluster.get("nodes");
        ObjectNode first = nodes.get(0).deepCopy();
        if (first.has("nvidiaSmi")) {
            // Relative to the original file, which stays where it is.
            first.put("nvidiaSmi", topology.getParent().resolve(first.get("nvidiaSmi").asText()).toAbsolutePath().toString());
        }
        nodes.removeAll();
        nodes.add(first);
        Path file = directory.resolve("probe.json");
        Files.writeString(file, mapper.writeValueAsString(cluster));
        return file;
    }
}
