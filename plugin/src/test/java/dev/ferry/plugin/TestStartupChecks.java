package dev.ferry.plugin;

import java.util.List;
import java.util.Map;

import dev.ferry.device.cuda.CudaAvailability;
import dev.ferry.device.cuda.CudaProbe;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every spark.ferry.* setting checked once when the driver starts; each message as a user sees it. */
class TestStartupChecks
{
    private static final String TOPOLOGY = "../examples/topologies/pcie-roce-2node.json";

    @Test
    void aMistypedKeyIsWarnedWithWhatWasMeant()
    {
        StartupChecks.Result result = StartupChecks.run(Map.of("spark.ferry.shuffle.compresion.codec", "lz4", "spark.app.name", "x"));
        assertEquals(List.of("Unknown setting spark.ferry.shuffle.compresion.codec is ignored; did you mean spark.ferry.shuffle.compression.codec?"),
                result.warnings());
    }

    @Test
    void eachBadValueNamesKeyValueAndAllowedValues()
    {
        assertRefused(Map.of("spark.ferry.device", "gpu"), "spark.ferry.device must be one of auto|cuda|simulated|host, got 'gpu'");
        assertRefused(Map.of("spark.ferry.shuffle.compression.codec", "gzip"), "spark.ferry.shuffle.compression.codec must be one of none|lz4|zstd|auto, got 'gzip'");
        assertRefused(Map.of("spark.ferry.shuffle.host.memoryBytes", "half"), "spark.ferry.shuffle.host.memoryBytes must be a size such as 512m or 4g, got 'half'");
        assertRefused(Map.of("spark.ferry.gds.io.prefetch", "sometimes"), "spark.ferry.gds.io.prefetch must be true or false, got 'sometimes'");
        assertRefused(Map.of("spark.ferry.metrics.level", "all"), "spark.ferry.metrics.level must be one of essential|moderate|debug, got 'all'");
        assertRefused(Map.of("spark.ferry.shuffle.executorPlacement", "1:dgx-a"),
                "spark.ferry.shuffle.executorPlacement='1:dgx-a': executor placement '1:dgx-a' is not <executorId>=<node>[:<gpu>] (e.g. 1=dgx-a:GPU0 or 1=dgx-a:0)");
    }

    @Test
    void placementsAreCheckedAgainstTheTopologyFileInBothForms()
    {
        StartupChecks.Result ok = StartupChecks.run(Map.of("spark.ferry.topology.file", TOPOLOGY, "spark.ferry.shuffle.executorPlacement", "0=pcie-a:0,1=pcie-b:GPU1"));
        assertEquals(List.of(), ok.warnings());
        assertTrue(ok.topologyFile().isPresent());
        IllegalArgumentException node = assertThrows(IllegalArgumentException.class,
                () -> StartupChecks.run(Map.of("spark.ferry.topology.file", TOPOLOGY, "spark.ferry.shuffle.executorPlacement", "1=dgx-a:GPU0")));
        assertTrue(node.getMessage().startsWith("spark.ferry.shuffle.executorPlacement: executor 1 placed on node 'dgx-a', not in topology"), node.getMessage());
        IllegalArgumentException gpu = assertThrows(IllegalArgumentException.class,
                () -> StartupChecks.run(Map.of("spark.ferry.topology.file", TOPOLOGY, "spark.ferry.shuffle.executorPlacement", "1=pcie-a:GPU9")));
        assertTrue(gpu.getMessage().contains("executor 1 placed on GPU 'GPU9', not on node pcie-a"), gpu.getMessage());
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
                () -> StartupChecks.run(Map.of("spark.ferry.topology.file", "/nonexistent/cluster.json")));
        assertEquals("spark.ferry.topology.file=/nonexistent/cluster.json: no readable file there on the driver (executors read the same path)", missing.getMessage());
        assertEquals(List.of("spark.ferry.shuffle.executorPlacement is ignored without spark.ferry.topology.file (probed executors take the GPU Spark assigned)"),
                StartupChecks.run(Map.of("spark.ferry.shuffle.executorPlacement", "1=pcie-a:0")).warnings());
    }

    @Test
    void aBadValueFailsTheApplicationsStart()
    {
        Throwable failure = assertThrows(Throwable.class, () -> SparkSession.builder()
                .master("local[1]")
                .appName("ferry-bad-setting")
                .config("spark.plugins", "dev.ferry.FerryPlugin")
                .config("spark.ui.enabled", "false")
                .config("spark.ferry.device", "gpu")
                .getOrCreate());
        StringBuilder messages = new StringBuilder();
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            messages.append(cause.getMessage()).append('\n');
        }
        assertTrue(messages.toString().contains("spark.ferry.device must be one of auto|cuda|simulated|host, got 'gpu'"), messages.toString());
        SparkSession.getActiveSession().foreach(session -> {
            session.stop();
            return null;
        });
    }

    @Test
    void deviceCudaWithoutCudaFailsTheExecutorsStartNamingTheKey()
    {
        CudaAvailability cuda = CudaProbe.availability();
        Assumptions.assumeFalse(cuda.available(), "this machine has CUDA: " + cuda);
        // local mode: the executor plugin starts inside the driver, so its failure fails the application's start.
        Throwable failure = assertThrows(Throwable.class, () -> SparkSession.builder()
                .master("local[1]")
                .appName("ferry-cuda-required")
                .config("spark.plugins", "dev.ferry.FerryPlugin")
                .config("spark.ui.enabled", "false")
                .config("spark.ferry.device", "cuda")
                .getOrCreate());
        StringBuilder messages = new StringBuilder();
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            messages.append(cause.getMessage()).append('\n');
        }
        assertTrue(messages.toString().contains("spark.ferry.device=cuda, but this JVM has no usable CUDA (" + cuda.shortReason() + ")"), messages.toString());
        SparkSession.getActiveSession().foreach(session -> {
            session.stop();
            return null;
        });
        SparkSession.getDefaultSession().foreach(session -> {
            session.stop();
            return null;
        });
    }

    private static void assertRefused(Map<String, String> settings, String message)
    {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> StartupChecks.run(settings));
        assertEquals("Ferry refused 1 setting at start: " + message, refused.getMessage());
    }
}
