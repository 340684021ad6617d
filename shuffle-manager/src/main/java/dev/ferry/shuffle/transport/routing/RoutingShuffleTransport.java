package dev.ferry.shuffle.transport.routing;

import java.io.IOException;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.ferry.device.ipc.SharedMappings;
import dev.ferry.shuffle.PeerEndpoints;
import dev.ferry.shuffle.placement.ExecutorPlace;
import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.FetchedBlocks;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.ShuffleTransport;
import dev.ferry.shuffle.transport.client.TcpShuffleTransport;
import dev.ferry.shuffle.transport.crypto.SparkCryptoSettings;
import dev.ferry.shuffle.transport.gpurdma.GpuRdmaBlockFetcher;
import dev.ferry.shuffle.transport.ipc.DeviceBlockReader;
import dev.ferry.shuffle.transport.ipc.DeviceLanding;
import dev.ferry.shuffle.transport.ipc.IpcBlockFetcher;
import dev.ferry.shuffle.transport.metrics.PeerRouteLog;
import dev.ferry.shuffle.transport.metrics.RouteCounters;
import dev.ferry.shuffle.transport.rdma.RdmaBlockFetcher;
import dev.ferry.shuffle.transport.rdma.VerbsBlocks;
import dev.ferry.shuffle.transport.shm.ShmBlockFetcher;
import dev.ferry.shuffle.transport.shm.ShmBlockReader;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.route.Route;
import dev.ferry.topology.route.RouteDecision;
import dev.ferry.topology.route.RoutePolicy;
import org.apache.arrow.memory.BufferAllocator;

import static java.util.Objects.requireNonNull;

/**
 * Picks a route per peer from the cluster topology and where the peer's blocks live, as the
 * {@link RoutePolicy} decides it: host-resident blocks of the same node {@code HOST_SHM}, of another
 * node {@code RDMA}, {@code IPOIB_TCP} or {@code TCP} ({@link RoutePolicy#nodeToNode}); GPU-resident
 * blocks {@code NVLINK}, {@code PCIE_P2P} or {@code HOST_STAGED} on the same node
 * ({@link RoutePolicy#gpuToGpu}) and {@code GPUDIRECT_RDMA} or {@code RDMA_HOST_STAGED} across nodes
 * ({@link RoutePolicy#gpuAcrossNodes}).
 *
 * <p>Data paths: {@code HOST_SHM} (the peer publishes blocks in shared memory, only handles cross
 * its socket); {@code HOST_STAGED} (the same for GPU-resident blocks, which the peer stages through
 * its host memory); {@code RDMA} and {@code RDMA_HOST_STAGED} (the peer registers the block's host
 * bytes, staged from its GPU for the latter, with its NIC, and this executor READs them one-sidedly
 * through the verbs layer: simulated verbs under a simulated cluster); {@code IPOIB_TCP}/{@code TCP}
 * (the stream transport, reporting the route name); with this executor's device runtime (the
 * device store's), {@code NVLINK}/{@code PCIE_P2P} (the peer lends the block's device buffer from
 * its store and exports it over CUDA IPC; {@link DeviceBlockReader} opens it here); and
 * {@code GPUDIRECT_RDMA} (the peer registers the block's device memory with its NIC; this executor
 * READs it one-sidedly). Where blocks land: in host memory here, because Spark's reduce side
 * (Ferry's Arrow decoder) runs on the CPU: an IPC block is copied once out of the peer's GPU into a
 * reused pinned landing buffer ({@link dev.ferry.shuffle.transport.ipc.HostLandingPool}) and counted as
 * {@code PEER_GPU_D2H} (the peer GPU's D->H; no NVLink or peer link is crossed), a GPUDirect RDMA
 * block is READ out of the peer's GPU into registered host memory; neither visits this executor's
 * GPU ({@link DeviceBlockReader#readToDevice} is the path for a device consumer). A block the peer
 * has spilled off its GPU travels {@code HOST_STAGED} / {@code RDMA_HOST_STAGED} instead and is
 * counted there, with a logged fallback. Without a device runtime here (CUDA IPC needs a context in
 * the reading process) the IPC routes go {@code HOST_STAGED}; an RDMA route without a verbs layer
 * goes over the stream transport. The route reported, counted and logged is always the one that carried the bytes,
 * with the decision and any fallback in the reason. The choice
 * per peer is made once and logged once ({@link PeerRouteLog}); every block is counted in
 * {@link RouteCounters}. Thread-safe.
 */
public final class RoutingShuffleTransport
        implements ShuffleTransport
{
    private static final long BOUNCE_BYTES = 4L << 20;

    private final ClusterTopology cluster;
    private final ExecutorPlace self;
    private final RoutePolicy policy;
    private final TcpShuffleTransport stream;
    private final ShmBlockReader shm;
    // For GPU-resident blocks staged through shared memory: counted here on HOST_STAGED, not on HOST_SHM.
    private final ShmBlockReader unCountedShm;
    private final Optional<VerbsBlocks> verbs;
    private final String noVerbsReason;
    private final RouteCounters counters;
    private final PeerRouteLog log;
    private final Optional<DeviceLanding> device;
    private final Optional<DeviceBlockReader> deviceReader;
    private final Map<String, PeerRoute> choices = new ConcurrentHashMap<>();
    private final SparkCryptoSettings crypto;
    /** Routes whose blocks a one-sided READ carries outside the (encrypted) stream. */
    private static final Set<Route> ONE_SIDED = EnumSet.of(Route.RDMA, Route.RDMA_HOST_STAGED, Route.GPUDIRECT_RDMA);
    /** Routes that leave a block in shared memory or an exported device buffer beyond its request. */
    private static final Set<Route> SHARED_MEMORY = EnumSet.of(Route.HOST_SHM, Route.HOST_STAGED, Route.NVLINK, Route.PCIE_P2P);

    /** {@code verbs}: this executor's NIC for the RDMA routes, or empty with {@code noVerbsReason}. */
    public RoutingShuffleTransport(ClusterTopology cluster, ExecutorPlace self, RoutePolicy policy, TcpShuffleTransport stream, Path shmDirectory, ShmBlockReader shm,
            Optional<VerbsBlocks> verbs, String noVerbsReason, RouteCounters counters, PeerRouteLog log)
    {
        this(cluster, self, policy, stream, shmDirectory, shm, verbs, noVerbsReason, counters, log, Optional.empty(), 0);
    }

    /**
     * As above; {@code device}: this executor's device runtime (which opens NVLINK and PCIE_P2P IPC handles) and the pool (its device store's)
     * that blocks for a device consumer land in; {@code hostLandingRetainBytes}: idle pinned host buffers kept for device blocks wanted in host memory
     * ({@code spark.ferry.transport.hostLandingPoolBytes}).
     */
    public RoutingShuffleTransport(ClusterTopology cluster, ExecutorPlace self, RoutePolicy policy, TcpShuffleTransport stream, Path shmDirectory, ShmBlockReader shm,
            Optional<VerbsBlocks> verbs, String noVerbsReason, RouteCounters counters, PeerRouteLog log, Optional<DeviceLanding> device, long hostLandingRetainBytes)
    {
        this(cluster, self, policy, stream, shmDirectory, shm, verbs, noVerbsReason, counters, log, device, hostLandingRetainBytes, SparkCryptoSettings.none());
    }

    /**
     * As above; {@code crypto}: Spark's encryption settings, under which routes whose bytes would
     * leave the encrypted stream ({@code spark.network.crypto.enabled}: RDMA READs) or outlive their
     * request outside it ({@code spark.io.encryption.enabled}: shared memory, exported device
     * buffers) are not used: their blocks go over the stream, with that reason in the route log.
     */
    public RoutingShuffleTransport(ClusterTopology cluster, ExecutorPlace self, RoutePolicy policy, TcpShuffleTransport stream, Path shmDirectory, ShmBlockReader shm,
            Optional<VerbsBlocks> verbs, String noVerbsReason, RouteCounters counters, PeerRouteLog log, Optional<DeviceLanding> device, long hostLandingRetainBytes,
            SparkCryptoSettings crypto)
    {
        this.crypto = requireNonNull(crypto, "crypto is null");
        this.device = requireNonNull(device, "device is null");
        this.deviceReader = device.map(landing -> new DeviceBlockReader(landing.runtime(), landing.device(), counters, BOUNCE_BYTES, hostLandingRetainBytes));
        this.cluster = requireNonNull(cluster, "cluster is null");
        this.self = requireNonNull(self, "self is null");
        this.policy = requireNonNull(policy, "policy is null");
        this.stream = requireNonNull(stream, "stream is null");
        this.shm = requireNonNull(shm, "shm is null");
        this.unCountedShm = new ShmBlockReader(shmDirectory, new RouteCounters());
        this.verbs = requireNonNull(verbs, "verbs is null");
        this.noVerbsReason = requireNonNull(noVerbsReason, "noVerbsReason is null");
        this.counters = requireNonNull(counters, "counters is null");
        this.log = requireNonNull(log, "log is null");
        cluster.node(self.node()).orElseThrow(() -> new IllegalArgumentException("This executor's node " + self.node() + " is not in topology " + cluster.name()));
    }

    /** Not one route: each fetch reports the route its peer got ({@link #choose}). */
    @Override
    public String routeName()
    {
        return "ROUTED";
    }

    public RouteCounters counters()
    {
        return counters;
    }

    /** The route to {@code peer}, decided on first use and then kept (a peer's place and store do not change). */
    public PeerRoute choose(PeerAddress peer)
    {
        return choices.computeIfAbsent(peer.executorId() + "@" + peer.topologyInfo(), ignored -> {
            PeerRoute choice = decide(peer);
            log.record("executor " + peer.executorId(), choice.carrier(), choice.reason());
            return choice;
        });
    }

    private PeerRoute decide(PeerAddress peer)
    {
        Optional<ExecutorPlace> place = PeerEndpoints.place(peer.topologyInfo());
        if (place.isEmpty()) {
            return new PeerRoute(Route.TCP, Route.TCP, "peer announced no place in the topology");
        }
        Optional<NodeTopology> peerNode = cluster.node(place.get().node());
        if (peerNode.isEmpty()) {
            return new PeerRoute(Route.TCP, Route.TCP, "peer's node " + place.get().node() + " is not in topology " + cluster.name());
        }
        NodeTopology localNode = cluster.node(self.node()).orElseThrow();
        boolean sameNode = peerNode.get().hostname().equals(localNode.hostname());
        boolean deviceBlocks = PeerEndpoints.deviceResident(peer.topologyInfo()) && place.get().gpu().isPresent() && self.gpu().isPresent();
        String where = "peer " + place.get() + (deviceBlocks ? " (blocks in GPU memory)" : " (blocks in host memory)") + " -> " + self;
        RouteDecision decision;
        if (deviceBlocks) {
            decision = sameNode ? policy.gpuToGpu(localNode, place.get().gpu().get(), self.gpu().get())
                    : policy.gpuAcrossNodes(peerNode.get(), place.get().gpu().get(), localNode, self.gpu().get());
        }
        else {
            decision = policy.nodeToNode(peerNode.get(), localNode);
        }
        Route decided = decision.route();
        String reason = where + ": " + decision.reason();
        Route carrier;
        switch (decided) {
            case HOST_SHM:
            case HOST_STAGED:
            case IPOIB_TCP:
            case TCP:
                carrier = decided;
                break;
            case RDMA:
            case RDMA_HOST_STAGED:
                carrier = verbs.isPresent() ? decided : Route.TCP;
                break;
            case GPUDIRECT_RDMA:
                // The READ lands in host memory here, so this executor needs a NIC, not a GPU.
                carrier = verbs.isPresent() ? (deviceBlocks ? decided : Route.RDMA_HOST_STAGED) : Route.TCP;
                break;
            case NVLINK:
            case PCIE_P2P:
                carrier = sameNode && deviceBlocks && device.isPresent() ? decided : sameNode ? (deviceBlocks ? Route.HOST_STAGED : Route.HOST_SHM) : Route.TCP;
                break;
            default:
                // Two executors sharing one GPU (LOCAL).
                carrier = sameNode ? (deviceBlocks ? Route.HOST_STAGED : Route.HOST_SHM) : Route.TCP;
                break;
        }
        if (carrier != decided) {
            boolean noVerbs = (carrier == Route.TCP) && verbs.isEmpty() && EnumSet.of(Route.RDMA, Route.RDMA_HOST_STAGED, Route.GPUDIRECT_RDMA).contains(decided);
            boolean noDevice = EnumSet.of(Route.NVLINK, Route.PCIE_P2P).contains(decided) && device.isEmpty();
            reason += noVerbs ? "; no verbs layer here (" + noVerbsReason + "), carried over " + carrier
                    : noDevice ? "; this executor has no device runtime to open " + decided + " IPC handles with, carried over " + carrier
                    : "; the " + decided + " data path is not wired into the shuffle, carried over " + carrier;
        }
        else if (EnumSet.of(Route.NVLINK, Route.PCIE_P2P, Route.GPUDIRECT_RDMA).contains(decided)) {
            reason += "; blocks the peer has spilled off its GPU go " + (decided == Route.GPUDIRECT_RDMA ? Route.RDMA_HOST_STAGED : Route.HOST_STAGED);
            reason += decided == Route.GPUDIRECT_RDMA ? "" : "; the CPU reduce side reads each block out of the peer's GPU into host memory: counted " + Route.PEER_GPU_D2H;
        }
        if (crypto.networkCrypto() && ONE_SIDED.contains(carrier)) {
            reason += "; " + SparkCryptoSettings.NETWORK_CRYPTO + " is on and RDMA READs would carry the blocks unencrypted: carried over TCP, encrypted";
            carrier = Route.TCP;
        }
        if (crypto.ioEncryption() && SHARED_MEMORY.contains(carrier)) {
            reason += "; " + SparkCryptoSettings.IO_ENCRYPTION + " is on and " + carrier + " would leave the blocks unencrypted in shared memory: carried over TCP"
                    + (crypto.networkCrypto() ? ", encrypted" : "");
            carrier = Route.TCP;
        }
        return new PeerRoute(decided, carrier, reason);
    }

    @Override
    public FetchedBlocks fetch(PeerAddress peer, List<ShuffleBlockRef> blocks, BufferAllocator allocator)
            throws IOException
    {
        PeerRoute choice = choose(peer);
        Route carrier = choice.carrier();
        if (carrier == Route.HOST_SHM) {
            // ShmBlockReader counts each block on HOST_SHM itself.
            return ShmBlockFetcher.fetch(stream, peer, blocks, allocator, carrier.name(), shm);
        }
        if (carrier == Route.NVLINK || carrier == Route.PCIE_P2P) {
            // DeviceBlockReader counts each block on the device route, the connection the spilled ones on HOST_STAGED.
            return IpcBlockFetcher.fetch(stream, peer, blocks, allocator, carrier, deviceReader.orElseThrow(), unCountedShm, counters);
        }
        if (carrier == Route.GPUDIRECT_RDMA) {
            return GpuRdmaBlockFetcher.fetch(stream, peer, blocks, allocator, verbs.orElseThrow(), counters);
        }
        FetchedBlocks fetched;
        if (carrier == Route.HOST_STAGED) {
            fetched = ShmBlockFetcher.fetch(stream, peer, blocks, allocator, carrier.name(), unCountedShm);
        }
        else if (carrier == Route.RDMA || carrier == Route.RDMA_HOST_STAGED) {
            fetched = RdmaBlockFetcher.fetch(stream, peer, blocks, allocator, carrier.name(), verbs.orElseThrow());
        }
        else {
            fetched = stream.fetch(peer, blocks, allocator, carrier.name());
        }
        for (BlockBytes block : fetched.blocks()) {
            counters.recordBlock(choice.carrier(), block.length());
        }
        return fetched;
    }

    /** Closes the stream connections to the departed executor and drops its route choice (a later executor may reuse the id elsewhere). */
    @Override
    public int peerLeft(String executorId)
    {
        choices.keySet().removeIf(key -> key.startsWith(executorId + "@"));
        // Its staging arena or simulated GPU memory stays mapped here until swept (its process is gone, or its files are).
        deviceReader.ifPresent(DeviceBlockReader::sweepDepartedPeers);
        SharedMappings.process().sweep();
        int verbsClosed = verbs.map(nic -> nic.peerLeft(executorId)).orElse(0);
        return verbsClosed + stream.closeConnectionsTo(executorId);
    }

    @Override
    public void close()
    {
        try {
            stream.close();
        }
        finally {
            try {
                verbs.ifPresent(VerbsBlocks::close);
            }
            finally {
                deviceReader.ifPresent(DeviceBlockReader::close);
            }
        }
    }
}
