package dev.ferry.topology.route;

import dev.ferry.topology.model.Gpu;
import dev.ferry.topology.model.KernelFacts;
import dev.ferry.topology.model.Nic;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.model.PathClass;
import dev.ferry.topology.model.PeerMemory;
import dev.ferry.topology.model.Presence;
import dev.ferry.topology.model.Relation;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * GPU to RDMA NIC inside one node, after NCCL's {@code ncclTopoCheckGdr}: GPUDirect RDMA when the NIC is
 * within the GDR level and GPU memory can be registered (peer-memory module or DMA-BUF), otherwise
 * RDMA from a host buffer.
 */
final class GpuNicRule
{
    private static final String RULE_GDR = "GPU-NIC: path within gdrLevel and peer memory present";
    private static final String RULE_STAGED = "GPU-NIC: GPUDirect RDMA not possible, stage through host memory";

    private final RoutePolicyConfig config;
    private final BandwidthModel bandwidths;

    GpuNicRule(RoutePolicyConfig config, BandwidthModel bandwidths)
    {
        this.config = requireNonNull(config, "config is null");
        this.bandwidths = requireNonNull(bandwidths, "bandwidths is null");
    }

    RouteDecision decide(NodeTopology node, String gpuName, String nicName)
    {
        Gpu gpu = node.gpu(gpuName).orElseThrow(() -> new IllegalArgumentException("Node " + node.hostname() + " has no GPU " + gpuName));
        Nic nic = node.nic(nicName).orElseThrow(() -> new IllegalArgumentException("Node " + node.hostname() + " has no RDMA NIC " + nicName));
        String threshold = config.gdrLevel().describe();
        List<String> notes = new ArrayList<>();
        Optional<Relation> relation = node.relation(gpuName, nicName);
        PathClass pathClass = relation.map(Relation::pathClass).orElse(PathClass.SYS);
        String path = relation.map(Relation::cell).orElse("?");
        Optional<String> pathDetail = relation.map(Relation::describe);
        if (relation.isEmpty()) {
            notes.add("no relation known between " + gpuName + " and " + nicName + "; treated as SYS");
        }
        if (!nic.ports().isEmpty() && !nic.isActive()) {
            notes.add(nicName + " has no active port");
        }
        KernelFacts kernel = node.kernelFacts();
        if (kernel.iommu().presence() == Presence.PRESENT) {
            notes.add("IOMMU is on (" + kernel.iommu().evidence() + "): GPUDirect RDMA may need iommu=pt or ACS off");
        }
        Bandwidth nicBandwidth = bandwidths.nic(nic);
        boolean withinLevel = pathClass.isWithin(config.gdrLevel().value());
        List<String> vetoes = new ArrayList<>();
        // Peer memory only matters once the path allows GPUDirect RDMA; farther NICs are ruled out by distance alone
        if (withinLevel) {
            peerMemoryVeto(kernel.peerMemory()).ifPresent(vetoes::add);
        }
        if (withinLevel && vetoes.isEmpty()) {
            Bandwidth direct = bandwidths.pcie(relation).min(nicBandwidth);
            String mechanism = kernel.peerMemory().mechanism().orElse("peer memory");
            return new RouteDecision(gpuName, nicName, Route.GPUDIRECT_RDMA, Optional.of(pathClass), path, pathDetail, direct.gbps(), direct.source(),
                    RULE_GDR, threshold,
                    Optional.of(new RunnerUp(Route.RDMA_HOST_STAGED, "GPUDirect RDMA skips the copy through host memory")),
                    vetoes, notes, gpuName + " <-> " + nicName + ": " + path + " is within " + config.gdrLevel().value().name()
                            + " and " + mechanism + " is present, GPUDirect RDMA at " + Bandwidth.format(direct.gbps()) + " GB/s");
        }
        String whyNot = withinLevel
                ? String.join("; ", vetoes)
                : "path " + path + (pathClass == PathClass.NODE ? " (NCCL: PHB)" : "") + " is beyond " + threshold;
        Bandwidth staged = bandwidths.pciePath(pathClass, relation, node.cpu()).min(nicBandwidth);
        String staging = gpu.numaNode().isPresent() ? "NUMA node " + gpu.numaNode().getAsInt() : "the GPU's NUMA node";
        return new RouteDecision(gpuName, nicName, Route.RDMA_HOST_STAGED, Optional.of(pathClass), path, pathDetail, staged.gbps(), staged.source(),
                RULE_STAGED, threshold, Optional.of(new RunnerUp(Route.GPUDIRECT_RDMA, whyNot)), vetoes, notes,
                gpuName + " <-> " + nicName + ": " + path + ", GPUDIRECT_RDMA ruled out (" + whyNot + "); RDMA from a host buffer on " + staging);
    }

    /** Why GPU memory cannot be registered with the NIC, if it cannot; UNKNOWN counts as absent. */
    static Optional<String> peerMemoryVeto(PeerMemory peerMemory)
    {
        switch (peerMemory.presence()) {
            case PRESENT:
                return Optional.empty();
            case ABSENT:
                return Optional.of("no peer-memory module (nvidia_peermem, nv_peer_mem) or DMA-BUF: " + peerMemory.evidence());
            case UNKNOWN:
                return Optional.of("peer memory unknown (" + peerMemory.evidence() + "); pass --peermem yes if nvidia_peermem or DMA-BUF is available");
        }
        throw new IllegalStateException("Unhandled presence " + peerMemory.presence());
    }
}
