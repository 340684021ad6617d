package dev.ferry.shuffle.transport.routing;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
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
import dev.ferry.shuffle.transport.BlockFetchException;
import dev.ferry.shuffle.transport.FetchedBlocks;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.RouteUnavailableException;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.ShuffleTransport;
import dev.ferry.shuffle.transport.client.TcpShuffleTransport;
import dev.ferry.shuffle.transport.crypto.SparkCryptoSettings;
import dev.ferry.shuffle.transport.gpurdma.GpuRdmaBlockFetcher;
import dev.ferry.shuffle.transport.ipc.DeviceBlockReader;
import dev.ferry.shuffle.transport.ipc.DeviceLanding;
import dev.ferry.shuffle.transport.ipc.IpcBlockFetcher;
import dev.ferry.shuffle.transport.metrics.PeerRouteFallbacks;
import dev.ferry.shuffle.transport.metrics.PeerRouteLog;
import dev.ferry.shuffle.transport.metrics.RouteCounters;
import dev.ferry.shuffle.transport.rdma.RdmaBlockFetcher;
import dev.ferry.shuffle.transport.rdma.VerbsBlocks;
import dev.ferry.shuffle.transport.shm.ShmBlockFetcher;
import dev.ferry.shuffle.transport.shm.ShmBlockReader;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.route.BlockConsumer;
import dev.ferry.topology.route.Route;
import dev.ferry.topology.route.RouteDecision;
import dev.ferry.topology.route.RoutePolicy;
import dev.ferry.topology.route.RunnerUp;
import org.apache.arrow.memory.BufferAllocator;

import static java.util.Objects.requireNonNull;

/**
 * Picks a route per peer from the cluster topology and where the peer's blocks live, as the
 * {@link RoutePolicy} decides it: host-resident blocks of the same node {@code HOST_SHM}, of another
 * node {@code RDMA}, {@code IPOIB_TCP} or {@code TCP} ({@link RoutePolicy#nodeToNode}); GPU-resident
 * blocks on the same node as the policy decides them for Spark's reduce side, a CPU consumer
 * ({@link RoutePolicy#gpuToGpu(NodeTopology, String, String, BlockConsumer)}: {@code PEER_GPU_D2H},
 * one D->H out of the peer's GPU, where {@code NVLINK} / {@code PCIE_P2P} would be a device
 * consumer's peer copy), and {@code GPUDIRECT_RDMA} or {@code RDMA_HOST_STAGED} across nodes
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
 * {@link RouteCounters}.
 *
 * <p>Fallbacks per peer: a route that turns out not to work with a peer when first used (an IPC
 * handle this executor cannot open: the exporter's pid is not visible, no shared {@code /dev/shm};
 * GPU memory the peer's NIC refuses to register; a shared-memory file not visible here) fails its
 * request with a {@link RouteUnavailableException}. The peer's route then becomes the policy's next
 * choice ({@link RoutePolicy#fallbackAfter}), logged once as a change with the reason and counted
 * ({@link #fallbacks()}, and in the exchange's metrics through {@link FetchedBlocks#fallbacks()}), and the request
 * is fetched again over it; later fetches from that peer go
 * straight there. Each step moves further down a chain that ends at TCP, so a request is fetched at
 * most four times and never loops; nothing reruns a stage. Thread-safe.
 */
public final class RoutingShuffleTransport
        implements ShuffleTransport
{
    private static final long BOUNCE_BYTES = 4L << 20;
    /** Spark's reduce side decodes blocks on the CPU: the consumer every GPU-resident block's route is decided for. */
    private static final BlockConsumer CONSUMER = BlockConsumer.CPU;
    /** The longest fallback chain of the route policy (PEER_GPU_D2H -> HOST_STAGED -> TCP; GPUDIRECT_RDMA -> RDMA_HOST_STAGED -> TCP), with room to spare. */
    private static final int MAX_FALLBACKS = 3;

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
    private final PeerRouteFallbacks fallbacks;
    private final SparkCryptoSettings crypto;
    /** Routes whose blocks a one-sided READ carries outside the (encrypted) stream. */
    private static final Set<Route> ONE_SIDED = EnumSet.of(Route.RDMA, Route.RDMA_HOST_STAGED, Route.GPUDIRECT_RDMA);
    /** Routes that leave a block in shared memory or an exported device buffer beyond its request. */
    private static final Set<Route> SHARED_MEMORY = EnumSet.of(Route.HOST_SHM, Route.HOST_STAGED, Route.NVLINK, Route.PCIE_P2P, Route.PEER_GPU_D2H);
    /** Routes whose blocks come over CUDA IPC (the IPC fetcher). */
    private static final Set<Route> DEVICE_IPC = EnumSet.of(Route.PEER_GPU_D2H, Route.NVLINK, Route.PCIE_P2P);

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
        this(cluster, self, policy, stream, shmDirectory, shm, verbs, noVerbsReason, counters, log, device,
                device.map(landing -> deviceReader(landing, counters, hostLandingRetainBytes)), new PeerRouteFallbacks(), crypto);
    }

    /**
     * As above, with the device block reader (and its pinned host landing pool) made once by the
     * caller with {@link #deviceReader} and shared by every routing transport built over it (a
     * probed view rebuilds this transport over a larger map: one landing pool, not one per map); like
     * the stream and the NIC it is closed by whichever transport is closed last; {@code fallbacks}:
     * the routes that did not work with each peer, shared the same way, so a rebuilt transport
     * decides a peer's route past them.
     */
    public RoutingShuffleTransport(ClusterTopology cluster, ExecutorPlace self, RoutePolicy policy, TcpShuffleTransport stream, Path shmDirectory, ShmBlockReader shm,
            Optional<VerbsBlocks> verbs, String noVerbsReason, RouteCounters counters, PeerRouteLog log, Optional<DeviceLanding> device,
            Optional<DeviceBlockReader> deviceReader, PeerRouteFallbacks fallbacks, SparkCryptoSettings crypto)
    {
        this.fallbacks = requireNonNull(fallbacks, "fallbacks is null");
        this.crypto = requireNonNull(crypto, "crypto is null");
        this.device = requireNonNull(device, "device is null");
        this.deviceReader = requireNonNull(deviceReader, "deviceReader is null");
        if (device.isPresent() != deviceReader.isPresent()) {
            throw new IllegalArgumentException("A device landing needs a device block reader and the reverse");
        }
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

    /** The reader of blocks out of peers' GPUs for {@code landing}'s runtime and GPU, with a pinned host landing pool keeping {@code hostLandingRetainBytes} idle. */
    public static DeviceBlockReader deviceReader(DeviceLanding landing, RouteCounters counters, long hostLandingRetainBytes)
    {
        return new DeviceBlockReader(landing.runtime(), landing.device(), counters, BOUNCE_BYTES, hostLandingRetainBytes);
    }

    /** Peers that fell back to the next route, per step. */
    public PeerRouteFallbacks fallbacks()
    {
        return fallbacks;
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
        return choices.computeIfAbsent(key(peer), key -> {
            PeerRoute choice = pastRefusals(key, decide(peer));
            log.record("executor " + peer.executorId(), choice.carrier(), choice.reason());
            return choice;
        });
    }

    /** {@code choice}, moved down the policy's fallback chain past every route already refused for this peer. */
    private PeerRoute pastRefusals(String key, PeerRoute choice)
    {
        PeerRoute current = choice;
        for (int step = 0; step < MAX_FALLBACKS; step++) {
            Route carrier = current.carrier();
            Optional<RunnerUp> next = fallbacks.refusal(key, carrier).flatMap(reason -> policy.fallbackAfter(carrier, reason));
            if (next.isEmpty()) {
                return current;
            }
            current = new PeerRoute(current.decided(), next.get().route(), current.reason() + "; fell back to " + next.get().route() + ": " + next.get().whyNot());
        }
        return current;
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
            decision = sameNode ? policy.gpuToGpu(localNode, place.get().gpu().get(), self.gpu().get(), CONSUMER)
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
            case PEER_GPU_D2H:
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
            boolean noDevice = DEVICE_IPC.contains(decided) && device.isEmpty();
            reason += noVerbs ? "; no verbs layer here (" + noVerbsReason + "), carried over " + carrier
                    : noDevice ? "; this executor has no device runtime to open " + decided + " IPC handles with, carried over " + carrier
                    : "; the " + decided + " data path is not wired into the shuffle, carried over " + carrier;
        }
        else if (DEVICE_IPC.contains(decided) || decided == Route.GPUDIRECT_RDMA) {
            reason += "; blocks the peer has spilled off its GPU go " + (decided == Route.GPUDIRECT_RDMA ? Route.RDMA_HOST_STAGED : Route.HOST_STAGED);
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
        // Every refusal moves the peer further down the policy's chain, which ends at TCP within MAX_FALLBACKS steps;
        // the bound also holds if the peer's choice is dropped (it left) and decided again meanwhile.
        // The steps this fetch took (counted once per peer: a concurrent fetch that hit the same refusal reports none), for the exchange's metrics.
        List<String> steps = new ArrayList<>(0);
        for (int attempt = 0; ; attempt++) {
            PeerRoute choice = choose(peer);
            try {
                return fetchOver(choice, peer, blocks, allocator).withFallbacks(steps);
            }
            catch (IOException e) {
                Optional<RouteUnavailableException> refused = RouteUnavailableException.in(e);
                if (refused.isEmpty() || attempt >= MAX_FALLBACKS || !fallBack(peer, choice, refused.get(), steps)) {
                    throw onRoute(choice, peer, e);
                }
            }
        }
    }

    /**
     * {@code peer}'s route {@code failed} did not work: its route becomes the policy's next choice,
     * logged once as a change with the reason, and counted. False when there is none (TCP refused
     * nothing that a fallback could avoid). Concurrent fetches that hit the same refusal fall back once;
     * the one that moved the peer adds the step ({@code FROM->TO}) to {@code steps}.
     */
    private boolean fallBack(PeerAddress peer, PeerRoute failed, RouteUnavailableException refused, List<String> steps)
    {
        Optional<RunnerUp> next = policy.fallbackAfter(failed.carrier(), refused.reason());
        if (next.isEmpty()) {
            return false;
        }
        String key = key(peer);
        boolean[] moved = new boolean[1];
        PeerRoute now = choices.compute(key, (ignored, current) -> {
            if (current != null && current.carrier() != failed.carrier()) {
                // Another fetch already moved this peer on.
                return current;
            }
            moved[0] = fallbacks.refuse(key, failed.carrier(), next.get().route(), refused.reason());
            return new PeerRoute(failed.decided(), next.get().route(), failed.reason() + "; fell back to " + next.get().route() + ": " + next.get().whyNot());
        });
        if (moved[0]) {
            steps.add(PeerRouteFallbacks.step(failed.carrier(), now.carrier()));
            log.record("executor " + peer.executorId(), now.carrier(), now.reason());
        }
        return true;
    }

    /**
     * The failure with its route in front of the message: the reader's fetch failure carries this message to the
     * driver, whose log then names the route as well as the peer (the transports' messages name the peer). It is a
     * {@link BlockFetchException} for {@code peer} and the block the original blames, if any, so the reader sees
     * both without walking the causes; the cause chain keeps the original (and any refusal in it).
     */
    private static IOException onRoute(PeerRoute choice, PeerAddress peer, IOException failure)
    {
        if (failure instanceof InterruptedIOException) {
            return failure;
        }
        return new BlockFetchException(peer, BlockFetchException.blockOf(failure), choice.carrier() + " route: " + failure.getMessage(), failure);
    }

    private static String key(PeerAddress peer)
    {
        return peer.executorId() + "@" + peer.topologyInfo();
    }

    private FetchedBlocks fetchOver(PeerRoute choice, PeerAddress peer, List<ShuffleBlockRef> blocks, BufferAllocator allocator)
            throws IOException
    {
        Route carrier = choice.carrier();
        if (carrier == Route.HOST_SHM) {
            // ShmBlockReader counts each block on HOST_SHM itself.
            return ShmBlockFetcher.fetch(stream, peer, blocks, allocator, carrier.name(), shm);
        }
        if (DEVICE_IPC.contains(carrier)) {
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
        fallbacks.forget(executorId + "@");
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
