package dev.ferry.repartition;

import dev.ferry.shuffle.DeviceReads;
import dev.ferry.shuffle.PeerEndpoints;
import dev.ferry.shuffle.placement.ExecutorPlace;
import dev.ferry.shuffle.transport.crypto.SparkCryptoSettings;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.route.BlockConsumer;
import dev.ferry.topology.route.Route;
import dev.ferry.topology.route.RouteDecision;
import dev.ferry.topology.route.RoutePolicy;

import java.util.Optional;

/**
 * How a reduce task's pieces come from one map's executor, as the topology's route policy decides
 * it for a device consumer (the pieces are wanted in this executor's GPU): this executor's own
 * store ({@code LOCAL}); a same-node peer's GPU over CUDA IPC with a peer copy ({@code NVLINK},
 * {@code PCIE_P2P}) or through pinned host buffers ({@code HOST_STAGED}); another node's GPU with
 * {@code GPUDIRECT_RDMA} into this GPU's memory where this executor has a NIC; anything else
 * (no verbs layer, which {@code spark.network.crypto.enabled} also means; a peer not in the
 * topology or without a device store; CUDA IPC under {@code spark.io.encryption.enabled}) through
 * the shuffle transport into host memory and uploaded ({@link Path#TRANSPORT_STAGED}), with the
 * reason.
 */
final class PieceRoutes
{
    private PieceRoutes() {}

    /** The data path that moves the bytes. */
    enum Path
    {
        LOCAL_STORE,
        IPC,
        GPUDIRECT_RDMA,
        TRANSPORT_STAGED,
    }

    /** {@code route}: the route named and counted for the pieces (for TRANSPORT_STAGED, HOST_STAGED: they pass through host memory). */
    record Choice(Path path, Route route, String reason) {}

    static Choice choose(DeviceReads reads, String selfExecutorId, MapPieces map)
    {
        return choose(new Context(reads.self(), reads.cluster(), reads.policy(), reads.verbs().isPresent(), reads.crypto()), selfExecutorId, map);
    }

    /** What the choice depends on: this executor's place, the topology and policy, whether it has a NIC, Spark's encryption settings. */
    record Context(ExecutorPlace self, ClusterTopology cluster, RoutePolicy policy, boolean verbs, SparkCryptoSettings crypto) {}

    static Choice choose(Context reads, String selfExecutorId, MapPieces map)
    {
        if (map.executorId().equals(selfExecutorId)) {
            return new Choice(Path.LOCAL_STORE, Route.LOCAL, "pieces in this executor's own device store");
        }
        Optional<ExecutorPlace> place = PeerEndpoints.place(map.topologyInfo());
        ExecutorPlace self = reads.self();
        if (place.isEmpty() || place.get().gpu().isEmpty() || self.gpu().isEmpty() || !PeerEndpoints.deviceResident(map.topologyInfo())) {
            return staged("executor " + map.executorId() + " announces no GPU-resident store in the topology (" + map.topologyInfo() + ")");
        }
        Optional<NodeTopology> peerNode = reads.cluster().node(place.get().node());
        NodeTopology localNode = reads.cluster().node(self.node()).orElseThrow(() -> new IllegalStateException(
                "this executor's node " + self.node() + " is not in topology " + reads.cluster().name()));
        if (peerNode.isEmpty()) {
            return staged("executor " + map.executorId() + "'s node " + place.get().node() + " is not in topology " + reads.cluster().name());
        }
        String peerGpu = place.get().gpu().get();
        String selfGpu = self.gpu().get();
        String where = "executor " + map.executorId() + " " + place.get() + " -> " + self + ": ";
        if (peerNode.get().hostname().equals(localNode.hostname())) {
            if (reads.crypto().ioEncryption()) {
                // As the shuffle's routing transport: an exported device buffer outlives its request outside the encrypted stream.
                return staged(where + SparkCryptoSettings.IO_ENCRYPTION + " is on and CUDA IPC would leave the blocks unencrypted outside the stream");
            }
            RouteDecision decision = reads.policy().gpuToGpu(localNode, peerGpu, selfGpu, BlockConsumer.DEVICE);
            switch (decision.route()) {
                case NVLINK:
                case PCIE_P2P:
                case HOST_STAGED:
                    return new Choice(Path.IPC, decision.route(), where + decision.reason());
                default:
                    // LOCAL: two executors on one GPU. The IPC reader copies between GPUs only; the bounce through pinned host memory serves this rare case.
                    return new Choice(Path.IPC, Route.HOST_STAGED, where + decision.reason() + "; " + decision.route()
                            + " between two executors is carried HOST_STAGED (the device IPC reader copies between GPUs)");
            }
        }
        RouteDecision decision = reads.policy().gpuAcrossNodes(peerNode.get(), peerGpu, localNode, selfGpu);
        if (decision.route() == Route.GPUDIRECT_RDMA) {
            if (reads.verbs()) {
                return new Choice(Path.GPUDIRECT_RDMA, Route.GPUDIRECT_RDMA, where + decision.reason());
            }
            return staged(where + decision.reason() + "; this executor has no verbs layer to READ into its GPU with");
        }
        return staged(where + decision.reason() + "; " + decision.route() + " lands in host memory: uploaded to this GPU");
    }

    private static Choice staged(String reason)
    {
        return new Choice(Path.TRANSPORT_STAGED, Route.HOST_STAGED, reason + "; fetched by the shuffle transport into host memory and uploaded");
    }
}
