package dev.ferry.shuffle.metrics;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import dev.ferry.shuffle.ExchangeMetrics;
import dev.ferry.shuffle.UsableRoutes;
import dev.ferry.topology.file.TopologyFileReader;
import dev.ferry.topology.model.ClusterTopology;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Which routes an exchange's metrics list for a cluster: those its topology can use, every route while it is unknown. */
class TestUsableRoutes
{
    private static ClusterTopology file(String name)
    {
        return TopologyFileReader.load(Path.of("..", "examples", "topologies", name));
    }

    @AfterEach
    void reset()
    {
        UsableRoutes.reset();
    }

    private static final List<String> GPUS_NO_NIC = List.of("LOCAL", "NVLINK", "PCIE_P2P", "PEER_GPU_D2H", "HOST_STAGED", "HOST_SHM", "TCP");

    @Test
    void gpusWithoutAnRdmaNicGetNoRdmaRoutes()
    {
        // A node without GPU or NIC (this build machine, probed) lists LOCAL, HOST_SHM and TCP only: TestExplainAndMetrics.
        assertEquals(GPUS_NO_NIC, List.copyOf(UsableRoutes.of(file("tcp-only-node.json"))));
    }

    @Test
    void gpusAndRdmaNicsBringTheirRoutes()
    {
        assertEquals(ExchangeMetrics.ROUTES, List.copyOf(UsableRoutes.of(file("dgx-h100-ib-2node.json"))));
    }

    @Test
    void anUnknownClusterListsEveryRoute()
    {
        assertEquals(ExchangeMetrics.ROUTES, List.copyOf(UsableRoutes.current()));
        ClusterTopology tcpOnly = file("tcp-only-node.json");
        UsableRoutes.install(() -> Optional.of(tcpOnly));
        assertEquals(GPUS_NO_NIC, List.copyOf(UsableRoutes.current()));
    }
}
