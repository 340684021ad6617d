package dev.ferry.gds.route;

import dev.ferry.gds.io.IoRoute;
import dev.ferry.topology.file.TopologyFileReader;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.probe.mount.FilePlacementProbe;
import dev.ferry.topology.route.FileConsumer;
import dev.ferry.topology.route.RoutePolicy;
import dev.ferry.topology.route.RoutePolicyConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The policy's answer for a file of this machine on a node of a topology file with eight GPUs and NVMe drives, per consumer. */
class TopologyFileRoutesTest
{
    private static final Path DGX = Path.of(System.getProperty("ferry.repo.dir", "..")).resolve("examples/topologies/dgx-h100-ib-2node.json");

    @TempDir
    Path directory;

    @Test
    void aCpuConsumerReadsOnHostAndADeviceConsumerOnADeviceRoute()
            throws IOException
    {
        NodeTopology node = TopologyFileReader.load(DGX).nodes().get(0);
        assertFalse(node.gpus().isEmpty() || node.nvmes().isEmpty(), "the fixture must have GPUs and NVMe drives");
        TopologyFileRoutes routes = new TopologyFileRoutes(new RoutePolicy(RoutePolicyConfig.defaults()), FilePlacementProbe.localMachine(), node);
        String file = Files.writeString(directory.resolve("part-0.parquet"), "placement only").toString();

        RouteChoice cpu = routes.advise(file, 0, FileConsumer.CPU);
        assertEquals(IoRoute.HOST, cpu.route());
        assertTrue(cpu.reason().contains("assumed a CPU consumer") && cpu.reason().contains("no PCIe crossing"), cpu.reason());
        assertTrue(cpu.reason().contains("a device consumer on " + node.gpus().get(0).name() + " would read on"), cpu.reason());

        RouteChoice device = routes.advise(file, 0, FileConsumer.DEVICE);
        assertTrue(device.route() == IoRoute.GDS || device.route() == IoRoute.BOUNCE, device.toString());
        assertTrue(device.reason().contains("assumed a device consumer"), device.reason());

        // A device the topology does not know (the simulated backend's) still gets HOST for a CPU consumer, a device route for a device one
        assertEquals(IoRoute.HOST, routes.advise(file, 99, FileConsumer.CPU).route());
        RouteChoice unknown = routes.advise(file, 99, FileConsumer.DEVICE);
        assertTrue(unknown.route() != IoRoute.HOST && unknown.reason().contains("only the storage side was judged"), unknown.toString());
    }
}
