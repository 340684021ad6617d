package dev.ferry.gds.route;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceRuntimes;
import dev.ferry.device.ExecutorGpu;
import dev.ferry.device.GpuResolution;
import dev.ferry.gds.GdsRouteSetting;
import dev.ferry.gds.io.IoRoute;
import dev.ferry.topology.file.TopologyFileReader;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.route.FileConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The gds reader's device is the task's Spark GPU matched by PCI bus id, never the address taken as a CUDA ordinal. */
class TestTaskGpuMatch
{
    private static final NodeTopology HGX = TopologyFileReader.load(Path.of("src", "test", "resources", "topologies", "hgx-8gpu-pci.json")).node("hgx-a").orElseThrow();
    // CUDA's ordinals run backwards over the PCI order Spark and NVML count in.
    private static final String REVERSED_BUS_IDS = "0000:db:00.0,0000:ba:00.0,0000:ab:00.0,0000:9a:00.0,0000:5d:00.0,0000:3a:00.0,0000:2a:00.0,0000:18:00.0";
    private static final DeviceProbe GPU = () -> new DeviceVerdict(true, "simulated");

    @AfterEach
    void forget()
    {
        ExecutorGpu.clear();
    }

    @Test
    void sparksAddressIsMatchedByBusId()
    {
        ExecutorGpu.install(HGX, HGX.gpu("GPU3").orElseThrow(), "Spark gpu resource address 3");
        try (DeviceRuntime runtime = runtime(8, REVERSED_BUS_IDS)) {
            // GPU5 is 0000:ab:00.0, CUDA device 2; the old "address mod count" would have said 5.
            GpuResolution five = ExecutorGpu.resolve(runtime, Optional.of("5"));
            assertEquals(2, five.match().orElseThrow().ordinal(), five.reason());
            assertTrue(five.reason().contains("0000:ab:00.0"), five.reason());
            // No task resource: the executor's own GPU, GPU3 = 0000:5d:00.0 = CUDA device 4.
            assertEquals(4, ExecutorGpu.resolve(runtime, Optional.empty()).match().orElseThrow().ordinal());
        }
    }

    @Test
    void anInvisibleGpuIsUnmatchedAndTheReaderFallsBackToHostWithTheReason()
    {
        ExecutorGpu.install(HGX, HGX.gpu("GPU5").orElseThrow(), "Spark gpu resource address 5");
        try (DeviceRuntime runtime = runtime(2, "0000:18:00.0,0000:2a:00.0")) {
            GpuResolution five = ExecutorGpu.resolve(runtime, Optional.of("5"));
            assertTrue(five.match().isEmpty(), "GPU5 is not among the two visible devices: " + five.reason());
            assertTrue(five.reason().contains("GPU5") && five.reason().contains("0000:ab:00.0"), five.reason());
            long fallbacks = RouteChooser.fallbacks();
            RouteChoice auto = new RouteChooser(GdsRouteSetting.AUTO, FileConsumer.DEVICE, GPU, (file, device, consumer) -> {
                throw new AssertionError("the policy must not be asked for a GPU that is not here");
            }).withoutTaskGpu("/data/a.parquet", five.reason());
            assertEquals(IoRoute.HOST, auto.route());
            assertTrue(auto.fallback() && auto.reason().contains("0000:ab:00.0"), auto.reason());
            assertEquals(fallbacks + 1, RouteChooser.fallbacks());
            // A forced device route cannot be served on another GPU: refused, naming why.
            RouteRefusedException refused = assertThrows(RouteRefusedException.class,
                    () -> new RouteChooser(GdsRouteSetting.GDS, FileConsumer.DEVICE, GPU, (file, device, consumer) -> null).withoutTaskGpu("/data/a.parquet", five.reason()));
            assertTrue(refused.getMessage().contains("GPU5"), refused.getMessage());
        }
    }

    @Test
    void withoutNodeFactsOnlyAnOrdinalInRangeMatches()
    {
        try (DeviceRuntime runtime = runtime(2, "0000:18:00.0,0000:2a:00.0")) {
            assertEquals(1, ExecutorGpu.resolve(runtime, Optional.of("1")).match().orElseThrow().ordinal());
            GpuResolution three = ExecutorGpu.resolve(runtime, Optional.of("3"));
            assertTrue(three.match().isEmpty(), "address 3 of a 2-device runtime must not wrap to device 1: " + three.reason());
            assertTrue(ExecutorGpu.resolve(runtime, Optional.of("GPU-1234")).match().isEmpty());
            assertEquals(0, ExecutorGpu.resolve(runtime, Optional.empty()).match().orElseThrow().ordinal());
        }
    }

    @Test
    void hostAndCpuAutoReadsNeedNoDevice()
    {
        assertEquals(IoRoute.HOST, RouteChooser.withoutDevice(GdsRouteSetting.AUTO, FileConsumer.CPU).orElseThrow().route());
        assertEquals(IoRoute.HOST, RouteChooser.withoutDevice(GdsRouteSetting.HOST, FileConsumer.DEVICE).orElseThrow().route());
        assertTrue(RouteChooser.withoutDevice(GdsRouteSetting.AUTO, FileConsumer.DEVICE).isEmpty());
        assertTrue(RouteChooser.withoutDevice(GdsRouteSetting.BOUNCE, FileConsumer.CPU).isEmpty(), "a forced device route still needs the device");
    }

    private static DeviceRuntime runtime(int gpus, String busIds)
    {
        return DeviceRuntimes.create(new MapConfigSource(Map.of(
                "spark.ferry.device", "simulated",
                "spark.ferry.device.simulated.count", String.valueOf(gpus),
                "spark.ferry.device.simulated.capacity", "4m",
                "spark.ferry.device.simulated.busIds", busIds)));
    }
}
