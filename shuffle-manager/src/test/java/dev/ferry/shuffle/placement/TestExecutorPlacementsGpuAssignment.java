package dev.ferry.shuffle.placement;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceRuntimes;
import dev.ferry.device.ExecutorGpu;
import dev.ferry.shuffle.store.DeviceTieredMapOutputStore;
import dev.ferry.shuffle.store.MapOutputStore;
import dev.ferry.shuffle.store.MapOutputStores;
import dev.ferry.topology.file.TopologyFileReader;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.model.NodeTopology;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An executor's GPU is the one Spark assigned, and its device store sits on the CUDA device with that GPU's PCI bus id. */
class TestExecutorPlacementsGpuAssignment
{
    private static final ClusterTopology HGX = TopologyFileReader.load(Path.of("src", "test", "resources", "topologies", "hgx-8gpu-pci.json"));
    // CUDA's default order need not be the PCI order Spark and NVML count in: here the ordinals run backwards.
    private static final String REVERSED_BUS_IDS = "0000:db:00.0,0000:ba:00.0,0000:ab:00.0,0000:9a:00.0,0000:5d:00.0,0000:3a:00.0,0000:2a:00.0,0000:18:00.0";

    @TempDir
    Path temp;

    @AfterEach
    void forget()
    {
        ExecutorGpu.clear();
    }

    @Test
    void sparksGpuAddressPicksTheGpuNotTheExecutorId()
    {
        assertEquals(new ExecutorPlace("hgx-a", Optional.of("GPU3")), ExecutorPlacements.assign(HGX, "1", "hgx-a", "", List.of("3")));
        assertEquals(new ExecutorPlace("hgx-a", Optional.of("GPU5")), ExecutorPlacements.assign(HGX, "2", "hgx-a", "", List.of("5", "6")));
        assertEquals(new ExecutorPlace("hgx-a", Optional.of("GPU1")), ExecutorPlacements.assign(HGX, "1", "hgx-a", ""), "without GPU scheduling: id mod gpus");
        assertEquals(new ExecutorPlace("hgx-b", Optional.of("GPU3")), ExecutorPlacements.assign(HGX, "7", "elsewhere", "", List.of("GPU3")), "round-robin node, assigned GPU by name");
        assertEquals(new ExecutorPlace("hgx-b", Optional.of("GPU0")), ExecutorPlacements.assign(HGX, "1", "hgx-a", "1=hgx-b:GPU0", List.of("3")), "the override still wins");
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> ExecutorPlacements.assign(HGX, "1", "hgx-a", "", List.of("9")));
        assertTrue(unknown.getMessage().contains("'9'") && unknown.getMessage().contains("hgx-a"), unknown.getMessage());
    }

    @Test
    void twoExecutorsOnGpu3AndGpu5GetTheirStoresOnTheMatchingDevices()
    {
        NodeTopology node = HGX.node("hgx-a").orElseThrow();
        // GPU3 is 0000:5d:00.0, CUDA device 4 here; GPU5 is 0000:ab:00.0, CUDA device 2.
        assertEquals(4, storeDevice(node, "1", "3"));
        assertEquals(2, storeDevice(node, "2", "5"));
    }

    @Test
    void aGpuThisProcessCannotSeeKeepsOutputsOnTheHostStoreWithTheReason()
    {
        NodeTopology node = HGX.node("hgx-a").orElseThrow();
        install(node, ExecutorPlacements.assign(HGX, "1", "hgx-a", "", List.of("5")), "Spark gpu address 5");
        Map<String, String> config = config(2, "0000:18:00.0,0000:2a:00.0");
        try (BufferAllocator arrow = new RootAllocator(); MapOutputStore store = MapOutputStores.create(new MapConfigSource(config), arrow, temp)) {
            assertFalse(store instanceof DeviceTieredMapOutputStore, "GPU5 is not among the two visible devices: " + store.name());
        }
        try (DeviceRuntime runtime = DeviceRuntimes.create(new MapConfigSource(config))) {
            IllegalStateException missing = assertThrows(IllegalStateException.class, () -> ExecutorGpu.device(runtime));
            assertTrue(missing.getMessage().contains("GPU5") && missing.getMessage().contains("0000:ab:00.0"), missing.getMessage());
        }
    }

    private int storeDevice(NodeTopology node, String executorId, String sparkAddress)
    {
        ExecutorPlace place = ExecutorPlacements.assign(HGX, executorId, node.hostname(), "", List.of(sparkAddress));
        install(node, place, "Spark gpu address " + sparkAddress);
        try (BufferAllocator arrow = new RootAllocator();
                MapOutputStore store = MapOutputStores.create(new MapConfigSource(config(8, REVERSED_BUS_IDS)), arrow, temp.resolve("executor-" + executorId))) {
            DeviceTieredMapOutputStore device = assertInstanceOf(DeviceTieredMapOutputStore.class, store);
            return device.pool().allocator().location().device();
        }
    }

    /** What the executor plugin does at start: this executor's GPU, from its place. */
    private static void install(NodeTopology node, ExecutorPlace place, String source)
    {
        ExecutorGpu.install(node, node.gpu(place.gpu().orElseThrow()).orElseThrow(), source);
    }

    private static Map<String, String> config(int gpus, String busIds)
    {
        Map<String, String> config = new HashMap<>();
        config.put("spark.ferry.shuffle.stage", "device");
        config.put("spark.ferry.device", "simulated");
        config.put("spark.ferry.device.simulated.count", String.valueOf(gpus));
        config.put("spark.ferry.device.simulated.capacity", "4m");
        config.put("spark.ferry.device.simulated.busIds", busIds);
        return config;
    }
}
