package dev.ferry.shuffle.placement;

import java.nio.file.Path;
import java.util.Optional;

import dev.ferry.shuffle.PeerEndpoints;
import dev.ferry.topology.file.TopologyFileReader;
import dev.ferry.topology.model.ClusterTopology;
import org.apache.spark.storage.BlockManagerId;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Executors onto (node, GPU) of a topology file, and the place riding in the MapStatus location. */
class TestExecutorPlacements
{
    private static final ClusterTopology ROCE = TopologyFileReader.load(Path.of("..", "examples", "topologies", "pcie-roce-2node.json"));

    @Test
    void roundRobinOverNodesThenGpusInExecutorIdOrder()
    {
        assertEquals(new ExecutorPlace("pcie-a", Optional.of("GPU0")), ExecutorPlacements.assign(ROCE, "0", "some-host", ""));
        assertEquals(new ExecutorPlace("pcie-b", Optional.of("GPU0")), ExecutorPlacements.assign(ROCE, "1", "some-host", ""));
        assertEquals(new ExecutorPlace("pcie-a", Optional.of("GPU1")), ExecutorPlacements.assign(ROCE, "2", "some-host", ""));
        assertEquals(new ExecutorPlace("pcie-b", Optional.of("GPU1")), ExecutorPlacements.assign(ROCE, "3", "some-host", ""));
        assertEquals(new ExecutorPlace("pcie-a", Optional.of("GPU0")), ExecutorPlacements.assign(ROCE, "8", "some-host", ""), "wraps around the 4 GPUs");
    }

    @Test
    void aHostNamedInTheFileKeepsItsNodeAndTheOverrideWins()
    {
        assertEquals("pcie-b", ExecutorPlacements.assign(ROCE, "0", "pcie-b", "").node());
        assertEquals(new ExecutorPlace("pcie-a", Optional.of("GPU3")), ExecutorPlacements.assign(ROCE, "1", "pcie-b", "0=pcie-b:GPU0, 1=pcie-a:GPU3"));
        assertEquals(new ExecutorPlace("pcie-b", Optional.empty()), ExecutorPlacements.assign(ROCE, "7", "x", "7=pcie-b"));
        assertThrows(IllegalArgumentException.class, () -> ExecutorPlacements.assign(ROCE, "1", "x", "1=nowhere:GPU0"));
        assertThrows(IllegalArgumentException.class, () -> ExecutorPlacements.assign(ROCE, "1", "x", "1=pcie-a:GPU9"));
        assertThrows(IllegalArgumentException.class, () -> ExecutorPlacements.assign(ROCE, "1", "x", "garbage"));
    }

    @Test
    void aGpuIsWrittenByNameOrByIndex()
    {
        ExecutorPlace gpu3 = new ExecutorPlace("pcie-a", Optional.of("GPU3"));
        assertEquals(gpu3, ExecutorPlacements.assign(ROCE, "1", "x", "1=pcie-a:GPU3"));
        assertEquals(gpu3, ExecutorPlacements.assign(ROCE, "1", "x", "1=pcie-a:3"));
        assertEquals(gpu3, ExecutorPlacements.assign(ROCE, "1", "x", "1=pcie-a:gpu3"));
        assertEquals(gpu3, ExecutorPlacements.assign(ROCE, "1", "x", " 1 = pcie-a:3 "));
    }

    @Test
    void aWrongPlacementIsRefusedWholeNamingTheKeyAndWhatTheFileHas()
    {
        ExecutorPlacements.check(ROCE, "0=pcie-a:0,1=pcie-b:GPU1");
        IllegalArgumentException node = assertThrows(IllegalArgumentException.class, () -> ExecutorPlacements.check(ROCE, "0=pcie-a:0,1=dgx-a:GPU0"));
        assertEquals("spark.ferry.shuffle.executorPlacement: executor 1 placed on node 'dgx-a', not in topology " + ROCE.name() + " (its nodes: [pcie-a, pcie-b])",
                node.getMessage());
        IllegalArgumentException gpu = assertThrows(IllegalArgumentException.class, () -> ExecutorPlacements.check(ROCE, "2=pcie-b:7"));
        assertTrue(gpu.getMessage().startsWith("spark.ferry.shuffle.executorPlacement: executor 2 placed on GPU '7', not on node pcie-b (its GPUs: [0 or GPU0, "),
                gpu.getMessage());
        IllegalArgumentException syntax = assertThrows(IllegalArgumentException.class, () -> ExecutorPlacements.checkSyntax("1:pcie-a"));
        assertEquals("executor placement '1:pcie-a' is not <executorId>=<node>[:<gpu>] (e.g. 1=dgx-a:GPU0 or 1=dgx-a:0)", syntax.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ExecutorPlacements.checkSyntax("1=pcie-a,1=pcie-b"));
    }

    @Test
    void thePlaceRidesBesideTheTcpPort()
    {
        BlockManagerId server = BlockManagerId.apply("3", "host-b", 7337, scala.Option.empty());
        BlockManagerId location = PeerEndpoints.withEndpoints(server, 4242, Optional.of(new ExecutorPlace("pcie-b", Optional.of("GPU1"))), true);
        assertEquals(4242, PeerEndpoints.tcpPort(location).getAsInt());
        String info = location.topologyInfo().get();
        assertEquals(Optional.of(new ExecutorPlace("pcie-b", Optional.of("GPU1"))), PeerEndpoints.place(info));
        assertTrue(PeerEndpoints.deviceResident(info));
        assertEquals(info, PeerEndpoints.tcpPeer(location).orElseThrow().topologyInfo());
        String plain = PeerEndpoints.withTcpPort(server, 4242).topologyInfo().get();
        assertEquals(Optional.empty(), PeerEndpoints.place(plain));
        assertFalse(PeerEndpoints.deviceResident(plain));
    }
}
