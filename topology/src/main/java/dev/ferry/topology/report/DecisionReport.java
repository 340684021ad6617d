package dev.ferry.topology.report;

import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.model.FilePlacement;
import dev.ferry.topology.model.Gpu;
import dev.ferry.topology.model.Nic;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.model.NvmeDrive;
import dev.ferry.topology.route.FileConsumer;
import dev.ferry.topology.route.RouteDecision;
import dev.ferry.topology.route.RoutePolicy;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Every decision Ferry would make for a cluster: inside each node (GPU pairs, GPU-NIC, GPU-NVMe) and
 * between each pair of nodes (host memory, and GPU-resident blocks between GPUs of the same index).
 *
 * @param cluster the topology decided on
 * @param nodes per-node decisions, in node order
 * @param network host-to-host routes for every unordered node pair
 * @param gpuNetwork GPU-resident routes between GPUs of the same index on every node pair
 */
public record DecisionReport(ClusterTopology cluster, List<NodeDecisions> nodes, List<RouteDecision> network, List<RouteDecision> gpuNetwork)
{
    public DecisionReport
    {
        requireNonNull(cluster, "cluster is null");
        nodes = List.copyOf(requireNonNull(nodes, "nodes is null"));
        network = List.copyOf(requireNonNull(network, "network is null"));
        gpuNetwork = List.copyOf(requireNonNull(gpuNetwork, "gpuNetwork is null"));
    }

    public static DecisionReport decide(ClusterTopology cluster, RoutePolicy policy)
    {
        return decide(cluster, policy, Optional.empty());
    }

    /**
     * Every decision, and how {@code file} would be read on the cluster's node: into each GPU, or into host
     * memory when there is none. A file lives on one machine, so with a file the cluster must have one node.
     */
    public static DecisionReport decide(ClusterTopology cluster, RoutePolicy policy, Optional<FilePlacement> file)
    {
        if (file.isPresent() && cluster.nodes().size() != 1) {
            throw new IllegalArgumentException("A file lives on one node, but cluster " + cluster.name() + " has " + cluster.nodes().size());
        }
        List<NodeDecisions> nodes = new ArrayList<>();
        for (NodeTopology node : cluster.nodes()) {
            nodes.add(decide(node, policy, file));
        }
        List<RouteDecision> network = new ArrayList<>();
        List<RouteDecision> gpuNetwork = new ArrayList<>();
        List<NodeTopology> all = cluster.nodes();
        for (int i = 0; i < all.size(); i++) {
            for (int j = i + 1; j < all.size(); j++) {
                NodeTopology a = all.get(i);
                NodeTopology b = all.get(j);
                network.add(policy.nodeToNode(a, b));
                for (Gpu gpu : a.gpus()) {
                    b.gpus().stream()
                            .filter(other -> other.index() == gpu.index())
                            .findFirst()
                            .ifPresent(other -> gpuNetwork.add(policy.gpuAcrossNodes(a, gpu.name(), b, other.name())));
                }
            }
        }
        return new DecisionReport(cluster, nodes, network, gpuNetwork);
    }

    private static NodeDecisions decide(NodeTopology node, RoutePolicy policy, Optional<FilePlacement> file)
    {
        List<RouteDecision> pairs = new ArrayList<>();
        List<RouteDecision> nics = new ArrayList<>();
        List<RouteDecision> nvmes = new ArrayList<>();
        List<Gpu> gpus = node.gpus();
        for (int i = 0; i < gpus.size(); i++) {
            for (int j = i + 1; j < gpus.size(); j++) {
                pairs.add(policy.gpuToGpu(node, gpus.get(i).name(), gpus.get(j).name()));
            }
            for (Nic nic : node.nics()) {
                nics.add(policy.gpuToNic(node, gpus.get(i).name(), nic.name()));
            }
            for (NvmeDrive nvme : node.nvmes()) {
                nvmes.add(policy.gpuToNvme(node, gpus.get(i).name(), nvme.controller()));
            }
        }
        return new NodeDecisions(node, pairs, nics, nvmes, file.map(placement -> fileReads(node, policy, placement)));
    }

    // A CPU consumer (Spark's gds scan) first, then a device consumer on each GPU: each decision's reason names the consumer it assumed.
    private static FileReads fileReads(NodeTopology node, RoutePolicy policy, FilePlacement placement)
    {
        if (node.gpus().isEmpty()) {
            return new FileReads(placement, List.of(policy.gpuToFile(node, Optional.empty(), placement, FileConsumer.CPU)));
        }
        List<RouteDecision> decisions = new ArrayList<>();
        decisions.add(policy.gpuToFile(node, Optional.of(node.gpus().get(0).name()), placement, FileConsumer.CPU));
        node.gpus().forEach(gpu -> decisions.add(policy.gpuToFile(node, Optional.of(gpu.name()), placement, FileConsumer.DEVICE)));
        return new FileReads(placement, List.copyOf(decisions));
    }

    /** Whether names need a host prefix to be unique (more than one node). */
    public boolean multiNode()
    {
        return cluster.nodes().size() > 1;
    }
}
