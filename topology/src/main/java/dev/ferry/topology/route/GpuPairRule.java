package dev.ferry.topology.route;

import dev.ferry.topology.model.Gpu;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.model.P2pAccess;
import dev.ferry.topology.model.P2pStatus;
import dev.ferry.topology.model.PathClass;
import dev.ferry.topology.model.Presence;
import dev.ferry.topology.model.Relation;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * GPU to GPU inside one node, after NCCL's {@code ncclTopoCheckP2p}: NVLink when linked, PCIe peer access
 * up to the P2P level when NVML does not refuse it, otherwise staging through host memory.
 */
final class GpuPairRule
{
    private static final String RULE_NVLINK = "GPU-GPU: NVLink (NV#) and NVML P2P not refused";
    private static final String RULE_P2P = "GPU-GPU: PCIe path within p2pLevel and NVML P2P not refused";
    private static final String RULE_STAGED = "GPU-GPU: no usable peer path, stage through host memory";
    private static final String RULE_HOST_CONSUMER = "GPU-GPU: CPU consumer, one D->H out of the exporter's GPU";

    private final RoutePolicyConfig config;
    private final BandwidthModel bandwidths;

    GpuPairRule(RoutePolicyConfig config, BandwidthModel bandwidths)
    {
        this.config = requireNonNull(config, "config is null");
        this.bandwidths = requireNonNull(bandwidths, "bandwidths is null");
    }

    /**
     * A block on GPU {@code a} wanted by {@code consumer} on the executor of GPU {@code b}. A device
     * consumer gets the pair's peer route (NVLINK, PCIE_P2P, or HOST_STAGED when peer access is
     * ruled out); a CPU consumer gets PEER_GPU_D2H, the exporter GPU's one D->H into host memory,
     * where the pair has a peer route (HOST_STAGED stays HOST_STAGED: the exporter makes that D->H),
     * with the peer route as runner-up (it would land the block in {@code b}'s memory and need a
     * second crossing down). The reason names the consumer assumed.
     */
    RouteDecision decide(NodeTopology node, String a, String b, BlockConsumer consumer)
    {
        RouteDecision device = decide(node, a, b);
        switch (consumer) {
            case DEVICE:
                return withReason(device, device.reason() + "; " + consumer.describe() + ": " + (device.route() == Route.LOCAL
                        ? "a device-local copy"
                        : device.route() == Route.HOST_STAGED ? "staged into " + b + "'s memory" : "a peer copy into " + b + "'s memory"));
            case CPU:
                if (a.equals(b)) {
                    return withReason(device, device.reason() + "; " + consumer.describe() + ": one D->H over " + a + "'s PCIe link");
                }
                if (device.route() == Route.HOST_STAGED) {
                    // Peer access is ruled out: the reader could open a's IPC handle only in a context on a (one more
                    // CUDA context per peer GPU in every executor), so the exporter stages the block through host memory:
                    // the same single D->H, made by the process that owns a.
                    return withReason(device, device.reason() + "; " + consumer.describe() + ": the exporter stages the block through host memory, one D->H over "
                            + a + "'s PCIe link (no IPC import: peer access between " + a + " and " + b + " is ruled out)");
                }
                Bandwidth link = device.pathClass().orElse(PathClass.SYS) == PathClass.NVLINK
                        ? bandwidths.assumedPcie("the exporter GPU's own PCIe link is not in the matrix of an NVLink pair")
                        : bandwidths.pcie(node.relation(a, b));
                return new RouteDecision(a, b, Route.PEER_GPU_D2H, device.pathClass(), device.path(), device.pathDetail(), link.gbps(), link.source(),
                        RULE_HOST_CONSUMER, device.threshold(),
                        Optional.of(new RunnerUp(device.route(), device.route() + " would land the block in " + b + "'s memory and copy it down again:"
                                + " two crossings where the consumer needs one")),
                        device.vetoes(), device.notes(),
                        a + " -> host memory of " + b + "'s executor: " + consumer.describe() + ", one D->H over " + a + "'s own PCIe link at "
                                + Bandwidth.format(link.gbps()) + " GB/s; no peer copy (" + device.route() + " is for a device consumer)");
        }
        throw new IllegalStateException("Unhandled consumer " + consumer);
    }

    private static RouteDecision withReason(RouteDecision decision, String reason)
    {
        return new RouteDecision(decision.source(), decision.target(), decision.route(), decision.pathClass(), decision.path(), decision.pathDetail(),
                decision.bandwidthGBps(), decision.bandwidthSource(), decision.rule(), decision.threshold(), decision.runnerUp(), decision.vetoes(),
                decision.notes(), reason);
    }

    /** The pair as a device consumer sees it, without naming the consumer (the topology matrix). */
    RouteDecision decide(NodeTopology node, String a, String b)
    {
        Optional<Gpu> gpuA = node.gpu(a);
        Optional<Gpu> gpuB = node.gpu(b);
        if (gpuA.isEmpty() || gpuB.isEmpty()) {
            throw new IllegalArgumentException("Node " + node.hostname() + " has no GPU " + (gpuA.isEmpty() ? a : b));
        }
        String threshold = config.p2pLevel().describe();
        if (a.equals(b)) {
            return new RouteDecision(a, b, Route.LOCAL, Optional.of(PathClass.SELF), "X", 5000.0, "NCCL LOC_BW 5000 GB/s (same device)",
                    "GPU-GPU: same device", threshold, Optional.empty(), List.of(), List.of(), a + " to itself: device-local copy");
        }
        Optional<Relation> relation = node.relation(a, b);
        List<String> notes = new ArrayList<>();
        PathClass pathClass;
        String path;
        if (relation.isPresent()) {
            pathClass = relation.get().pathClass();
            path = relation.get().cell();
        }
        else {
            // Unknown distance is treated as the farthest, so nothing is assumed to work that may not
            pathClass = PathClass.SYS;
            path = "?";
            notes.add("no relation known between " + a + " and " + b + "; treated as SYS");
        }
        List<String> vetoes = new ArrayList<>(p2pVetoes(node, a, b, notes));
        if (node.kernelFacts().iommu().presence() == Presence.PRESENT) {
            notes.add("IOMMU is on (" + node.kernelFacts().iommu().evidence() + "): peer-to-peer traffic may be redirected or blocked");
        }
        Optional<PathClass> shownClass = Optional.of(pathClass);
        Optional<String> pathDetail = relation.map(Relation::describe);
        Bandwidth staged = staged(node, pathClass, relation);
        String staging = stagingPlace(gpuA.get());

        if (pathClass == PathClass.NVLINK) {
            Bandwidth nvlink = bandwidths.nvlink(gpuA, gpuB, relation.get().nvlinkCount());
            if (!PathClass.NVLINK.isWithin(config.p2pLevel().value())) {
                vetoes.add("peer access disabled: " + threshold);
            }
            if (vetoes.isEmpty()) {
                return new RouteDecision(a, b, Route.NVLINK, shownClass, path, pathDetail, nvlink.gbps(), nvlink.source(), RULE_NVLINK, threshold,
                        Optional.of(new RunnerUp(Route.HOST_STAGED, "NVLink " + path + " (" + Bandwidth.format(nvlink.gbps())
                                + " GB/s) beats staging through host memory (" + Bandwidth.format(staged.gbps()) + " GB/s)")),
                        vetoes, notes, a + " <-> " + b + ": " + path + ", " + Bandwidth.format(nvlink.gbps()) + " GB/s over NVLink");
            }
            return stagedDecision(a, b, shownClass, path, pathDetail, staged, threshold, new RunnerUp(Route.NVLINK, String.join("; ", vetoes)),
                    vetoes, notes, staging);
        }
        Bandwidth p2p = bandwidths.pcie(relation);
        boolean withinLevel = pathClass.isWithin(config.p2pLevel().value());
        if (withinLevel && vetoes.isEmpty()) {
            return new RouteDecision(a, b, Route.PCIE_P2P, shownClass, path, pathDetail, p2p.gbps(), p2p.source(), RULE_P2P, threshold,
                    Optional.of(new RunnerUp(Route.HOST_STAGED, "peer access over " + path + " avoids a copy through host memory")),
                    vetoes, notes, a + " <-> " + b + ": " + path + " is within " + config.p2pLevel().value().name()
                            + ", PCIe peer-to-peer at " + Bandwidth.format(p2p.gbps()) + " GB/s");
        }
        String whyNot = withinLevel
                ? String.join("; ", vetoes)
                : "path " + path + (pathClass == PathClass.NODE ? " (NCCL: PHB)" : "") + " is beyond " + threshold;
        return stagedDecision(a, b, shownClass, path, pathDetail, staged, threshold, new RunnerUp(Route.PCIE_P2P, whyNot), vetoes, notes, staging);
    }

    private RouteDecision stagedDecision(String a, String b, Optional<PathClass> pathClass, String path, Optional<String> pathDetail, Bandwidth staged,
            String threshold, RunnerUp runnerUp, List<String> vetoes, List<String> notes, String staging)
    {
        return new RouteDecision(a, b, Route.HOST_STAGED, pathClass, path, pathDetail, staged.gbps(), staged.source(), RULE_STAGED, threshold,
                Optional.of(runnerUp), vetoes, notes,
                a + " <-> " + b + ": " + path + ", " + runnerUp.route() + " ruled out (" + runnerUp.whyNot() + "); staged through host memory " + staging);
    }

    private Bandwidth staged(NodeTopology node, PathClass pathClass, Optional<Relation> relation)
    {
        // An NVLink pair's PCIe path is not in the matrix; staging crosses each GPU's own PCIe link
        if (pathClass == PathClass.NVLINK) {
            return bandwidths.assumedPcie("the GPUs' own PCIe links are not in the matrix of an NVLink pair");
        }
        return bandwidths.pciePath(pathClass, relation, node.cpu());
    }

    private static String stagingPlace(Gpu gpu)
    {
        return gpu.numaNode().isPresent() ? "on NUMA node " + gpu.numaNode().getAsInt() + " (" + gpu.name() + "'s)" : "on " + gpu.name() + "'s NUMA node (unknown)";
    }

    private static List<String> p2pVetoes(NodeTopology node, String a, String b, List<String> notes)
    {
        Optional<P2pStatus> status = node.p2pStatus(a, b);
        if (status.isEmpty()) {
            notes.add("NVML P2P status not probed (no NVML); not a veto");
            return List.of();
        }
        List<String> vetoes = new ArrayList<>();
        check("READ", status.get().read(), vetoes, notes);
        check("WRITE", status.get().write(), vetoes, notes);
        return vetoes;
    }

    private static void check(String capability, P2pAccess access, List<String> vetoes, List<String> notes)
    {
        switch (access.state()) {
            case OK:
                return;
            case NOT_SUPPORTED:
                vetoes.add("NVML P2P " + capability + " status " + access.detail()
                        + (access.nvmlCode().isPresent() ? " (code " + access.nvmlCode().getAsInt() + ")" : ""));
                return;
            case UNKNOWN:
                notes.add("NVML P2P " + capability + " status unknown (" + access.detail() + "); not a veto");
                return;
        }
        throw new IllegalStateException("Unhandled P2P state " + access.state());
    }
}
