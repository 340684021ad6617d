package dev.ferry.topology.route;

import dev.ferry.topology.model.FilePlacement;
import dev.ferry.topology.model.Nic;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.model.NvmeDrive;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Decides how data moves between GPUs, NICs, nodes and files, with NCCL's defaults as the baseline.
 * Every answer is a {@link RouteDecision} that says why. Stateless and thread-safe.
 */
public final class RoutePolicy
{
    private final RoutePolicyConfig config;
    private final GpuPairRule gpuPairs;
    private final GpuNicRule gpuNics;
    private final NodeRouteRule nodes;
    private final FileRule files;

    public RoutePolicy(RoutePolicyConfig config)
    {
        this.config = requireNonNull(config, "config is null");
        BandwidthModel bandwidths = new BandwidthModel(config);
        this.gpuPairs = new GpuPairRule(config, bandwidths);
        this.gpuNics = new GpuNicRule(config, bandwidths);
        this.nodes = new NodeRouteRule(bandwidths);
        this.files = new FileRule(config, bandwidths);
    }

    public RoutePolicyConfig config()
    {
        return config;
    }

    /**
     * Two GPUs of one node as a device consumer sees the pair: LOCAL, NVLINK, PCIE_P2P or
     * HOST_STAGED (the topology matrix). See {@link #gpuToGpu(NodeTopology, String, String, BlockConsumer)}
     * for a block wanted by a named consumer.
     */
    public RouteDecision gpuToGpu(NodeTopology node, String gpuA, String gpuB)
    {
        return gpuPairs.decide(node, gpuA, gpuB);
    }

    /**
     * A block on {@code sourceGpu} wanted by {@code consumer} on the executor of {@code readerGpu}:
     * for a device consumer the pair's peer route (NVLINK or PCIE_P2P when peer access works, else
     * HOST_STAGED); for a CPU consumer PEER_GPU_D2H, one D->H out of the source GPU, since a peer
     * copy would only add a second crossing. The reason names the consumer assumed.
     */
    public RouteDecision gpuToGpu(NodeTopology node, String sourceGpu, String readerGpu, BlockConsumer consumer)
    {
        return gpuPairs.decide(node, sourceGpu, readerGpu, requireNonNull(consumer, "consumer is null"));
    }

    /**
     * The next route for a peer whose route {@code refused} could not be used between the two
     * processes ({@code why}: an IPC handle that cannot be opened, GPU memory the NIC refused, shared
     * memory not visible), as {@link RouteFallbacks} lists them; empty after the stream (TCP), which
     * has nothing further to fall back to. The runner-up's reason says what was refused and why.
     */
    public Optional<RunnerUp> fallbackAfter(Route refused, String why)
    {
        return RouteFallbacks.after(requireNonNull(refused, "refused is null"), requireNonNull(why, "why is null"));
    }

    /** A GPU and an RDMA NIC of one node: GPUDIRECT_RDMA or RDMA_HOST_STAGED. */
    public RouteDecision gpuToNic(NodeTopology node, String gpu, String nic)
    {
        return gpuNics.decide(node, gpu, nic);
    }

    /** The NIC a GPU should use: active NICs first (any NIC when none is known active), then closest path, then rate. */
    public Optional<Nic> bestNic(NodeTopology node, String gpu)
    {
        List<Nic> active = node.nics().stream().filter(Nic::isActive).toList();
        return NicChooser.bestFor(node, gpu, active.isEmpty() ? node.nics() : active);
    }

    /** Host memory between two nodes: HOST_SHM (same host), RDMA, IPOIB_TCP or TCP. */
    public RouteDecision nodeToNode(NodeTopology a, NodeTopology b)
    {
        return nodes.decide(a, b);
    }

    /**
     * A GPU-resident block from a GPU of one node to a GPU of another: GPUDIRECT_RDMA when both ends can use
     * GPUDirect RDMA with their best NIC of the chosen link layer, else RDMA_HOST_STAGED; IPOIB_TCP or TCP
     * when RDMA is not possible. Within one node this is {@link #gpuToGpu}.
     */
    public RouteDecision gpuAcrossNodes(NodeTopology nodeA, String gpuA, NodeTopology nodeB, String gpuB)
    {
        if (nodeA.hostname().equals(nodeB.hostname())) {
            return gpuToGpu(nodeA, gpuA, gpuB);
        }
        String source = gpuA + "@" + nodeA.hostname();
        String target = gpuB + "@" + nodeB.hostname();
        RouteDecision network = nodes.decide(nodeA, nodeB);
        Optional<NodeRouteRule.RdmaChoice> choice = nodes.rdmaChoice(nodeA, nodeB, new ArrayList<>(), new ArrayList<>());
        if (network.route() != Route.RDMA || choice.isEmpty()) {
            return new RouteDecision(source, target, network.route(), Optional.empty(), network.path(), network.bandwidthGBps(), network.bandwidthSource(),
                    network.rule(), network.threshold(), network.runnerUp(), network.vetoes(), network.notes(),
                    source + " -> " + target + ": " + network.route() + " between the hosts, the GPU data staged through host memory on both ends");
        }
        RouteDecision sideA = gpuNics.decide(nodeA, gpuA, best(nodeA, gpuA, NicChooser.active(nodeA, choice.get().layer())));
        RouteDecision sideB = gpuNics.decide(nodeB, gpuB, best(nodeB, gpuB, NicChooser.active(nodeB, choice.get().layer())));
        List<String> vetoes = new ArrayList<>();
        List<String> notes = new ArrayList<>(network.notes());
        sideA.vetoes().forEach(veto -> vetoes.add(nodeA.hostname() + " " + sideA.source() + "-" + sideA.target() + ": " + veto));
        sideB.vetoes().forEach(veto -> vetoes.add(nodeB.hostname() + " " + sideB.source() + "-" + sideB.target() + ": " + veto));
        sideA.notes().forEach(note -> notes.add(nodeA.hostname() + ": " + note));
        sideB.notes().forEach(note -> notes.add(nodeB.hostname() + ": " + note));
        double bandwidth = Math.min(network.bandwidthGBps(), Math.min(sideA.bandwidthGBps(), sideB.bandwidthGBps()));
        String bandwidthSource = bandwidth == network.bandwidthGBps() ? network.bandwidthSource()
                : bandwidth == sideA.bandwidthGBps() ? sideA.bandwidthSource() : sideB.bandwidthSource();
        String ends = nodeA.hostname() + " " + gpuA + "-" + sideA.target() + " " + sideA.path() + ", "
                + nodeB.hostname() + " " + gpuB + "-" + sideB.target() + " " + sideB.path();
        String threshold = config.gdrLevel().describe();
        String layer = choice.get().layer().displayName();
        if (sideA.route() == Route.GPUDIRECT_RDMA && sideB.route() == Route.GPUDIRECT_RDMA) {
            return new RouteDecision(source, target, Route.GPUDIRECT_RDMA, Optional.empty(), "NET", bandwidth, bandwidthSource,
                    "GPU-GPU across nodes: RDMA between the hosts and GPUDirect RDMA on both ends", threshold,
                    Optional.of(new RunnerUp(Route.RDMA_HOST_STAGED, "GPUDirect RDMA skips both host copies")), vetoes, notes,
                    source + " -> " + target + ": GPUDirect RDMA over " + layer + " (" + ends + ")");
        }
        String whyNot = String.join("; ", vetoes.isEmpty() ? List.of("GPUDirect RDMA not possible on one end") : vetoes);
        return new RouteDecision(source, target, Route.RDMA_HOST_STAGED, Optional.empty(), "NET", bandwidth, bandwidthSource,
                "GPU-GPU across nodes: RDMA between the hosts, GPUDirect RDMA not possible on both ends", threshold,
                Optional.of(new RunnerUp(Route.GPUDIRECT_RDMA, whyNot)), vetoes, notes,
                source + " -> " + target + ": RDMA over " + layer + " staged through host memory (" + ends + "); GPUDIRECT_RDMA ruled out: " + whyNot);
    }

    /**
     * A file read on a node with {@code gpu} (none: host memory only) for {@code consumer}: GDS or BOUNCE only
     * for a device consumer on a GPU, HOST otherwise. The reason names the consumer assumed.
     */
    public RouteDecision gpuToFile(NodeTopology node, Optional<String> gpu, FilePlacement placement, FileConsumer consumer)
    {
        return files.decide(node, gpu, placement, consumer);
    }

    /**
     * What about a file's filesystem, mount options and block devices rules out GPUDirect Storage whatever the
     * GPU, one reason each; empty when the storage side allows it. {@link #gpuToFile} vetoes with the same reasons.
     */
    public List<String> storageObstacles(FilePlacement placement)
    {
        return files.storageObstacles(placement);
    }

    /**
     * What a GPU would use for a file on ext4 ({@code data=ordered}) directly on the first namespace of
     * {@code controller}, for a device consumer: the drive's placement as far as GDS is concerned.
     */
    public RouteDecision gpuToNvme(NodeTopology node, String gpu, String controller)
    {
        NvmeDrive drive = node.nvme(controller).orElseThrow(() -> new IllegalArgumentException("Node " + node.hostname() + " has no NVMe " + controller));
        String namespace = drive.namespaces().isEmpty() ? controller + "n1" : drive.namespaces().get(0);
        FilePlacement placement = new FilePlacement("ext4 on " + namespace, "/" + namespace, "ext4", List.of("rw", "data=ordered"),
                List.of(namespace), Optional.of(controller));
        RouteDecision decision = files.decide(node, Optional.of(gpu), placement, FileConsumer.DEVICE);
        return new RouteDecision(decision.source(), controller, decision.route(), decision.pathClass(), decision.path(), decision.pathDetail(),
                decision.bandwidthGBps(), decision.bandwidthSource(), decision.rule(), decision.threshold(), decision.runnerUp(), decision.vetoes(), decision.notes(),
                decision.reason() + " [for a file on ext4 data=ordered directly on " + namespace + "]");
    }

    private static String best(NodeTopology node, String gpu, List<Nic> candidates)
    {
        return NicChooser.bestFor(node, gpu, candidates).orElseThrow(() -> new IllegalStateException("RDMA chosen without an active NIC on " + node.hostname())).name();
    }
}
