package dev.ferry.repartition;

import dev.ferry.shuffle.PeerEndpoints;
import dev.ferry.shuffle.placement.ExecutorPlace;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.crypto.SparkCryptoSettings;
import dev.ferry.topology.file.TopologyFileReader;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.route.Route;
import dev.ferry.topology.route.RoutePolicy;
import dev.ferry.topology.route.RoutePolicyConfig;
import org.apache.spark.storage.BlockManagerId;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The route of a reduce task's pieces per map executor on dgx-h100-ib-2node, as the policy decides
 * it for a device consumer: its own store LOCAL, the other GPU of its node NVLINK (a peer copy, not
 * the CPU reduce's PEER_GPU_D2H), a GPU of the other node GPUDIRECT_RDMA; staged through the
 * shuffle transport, with the reason, without a NIC here, for a peer whose blocks are in host
 * memory or that announces no place, and for same-node IPC under {@code spark.io.encryption.enabled}.
 */
class TestPieceRoutes
{
    private static final ClusterTopology CLUSTER = TopologyFileReader.load(Path.of(System.getProperty("ferry.repo.dir", ".."), "examples/topologies/dgx-h100-ib-2node.json"));
    private static final RoutePolicy POLICY = new RoutePolicy(RoutePolicyConfig.defaults());
    private static final ExecutorPlace SELF = new ExecutorPlace("dgx-a", Optional.of("GPU0"));
    private static final PieceRoutes.Context WITH_NIC = new PieceRoutes.Context(SELF, CLUSTER, POLICY, true, SparkCryptoSettings.none());

    @Test
    void eachPeerGetsTheDeviceConsumersRoute()
    {
        assertEquals(PieceRoutes.Path.LOCAL_STORE, PieceRoutes.choose(WITH_NIC, "0", map("0", "dgx-a", "GPU0", true)).path());

        PieceRoutes.Choice sameNode = PieceRoutes.choose(WITH_NIC, "0", map("2", "dgx-a", "GPU1", true));
        assertEquals(PieceRoutes.Path.IPC, sameNode.path());
        assertEquals(Route.NVLINK, sameNode.route(), sameNode.reason());
        assertTrue(sameNode.reason().contains("device consumer"), sameNode.reason());

        PieceRoutes.Choice otherNode = PieceRoutes.choose(WITH_NIC, "0", map("1", "dgx-b", "GPU0", true));
        assertEquals(PieceRoutes.Path.GPUDIRECT_RDMA, otherNode.path());
        assertEquals(Route.GPUDIRECT_RDMA, otherNode.route(), otherNode.reason());
    }

    @Test
    void routesWithoutADeviceDataPathHereAreStagedWithTheReason()
    {
        PieceRoutes.Choice noNic = PieceRoutes.choose(new PieceRoutes.Context(SELF, CLUSTER, POLICY, false, SparkCryptoSettings.none()), "0", map("1", "dgx-b", "GPU0", true));
        assertStaged(noNic, "no verbs layer");

        assertStaged(PieceRoutes.choose(WITH_NIC, "0", map("2", "dgx-a", "GPU1", false)), "no GPU-resident store");

        PieceRoutes.Choice encrypted = PieceRoutes.choose(new PieceRoutes.Context(SELF, CLUSTER, POLICY, true, new SparkCryptoSettings(false, true)), "0",
                map("2", "dgx-a", "GPU1", true));
        assertStaged(encrypted, SparkCryptoSettings.IO_ENCRYPTION);

        PieceRoutes.Choice unknownNode = PieceRoutes.choose(WITH_NIC, "0", map("5", "dgx-z", "GPU0", true));
        assertStaged(unknownNode, "not in topology");
    }

    private static void assertStaged(PieceRoutes.Choice choice, String why)
    {
        assertEquals(PieceRoutes.Path.TRANSPORT_STAGED, choice.path(), choice.reason());
        assertEquals(Route.HOST_STAGED, choice.route(), choice.reason());
        assertTrue(choice.reason().contains(why), choice.reason());
    }

    /** A map of executor {@code executorId} at {@code gpu} of {@code node}, its blocks in GPU memory or not, as its block server announces it. */
    private static MapPieces map(String executorId, String node, String gpu, boolean deviceResident)
    {
        BlockManagerId location = PeerEndpoints.withEndpoints(BlockManagerId.apply(executorId, "localhost", 7000, scala.Option.empty()), 9000,
                Optional.of(new ExecutorPlace(node, Optional.of(gpu))), deviceResident);
        PeerAddress peer = PeerEndpoints.tcpPeer(location).orElseThrow();
        ArrayList<PieceLayout> layouts = new ArrayList<>();
        layouts.add(null);
        return new MapPieces(0, 1, executorId, peer.host(), peer.port(), peer.topologyInfo(), layouts);
    }
}
