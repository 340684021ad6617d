package dev.ferry.topology.report;

import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.route.RouteDecision;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The decisions inside one node.
 *
 * @param node the node
 * @param gpuPairs every unordered GPU pair
 * @param gpuNics every GPU with every RDMA NIC
 * @param gpuNvmes every GPU with every NVMe drive (for a file on ext4 directly on the drive)
 */
public record NodeDecisions(NodeTopology node, List<RouteDecision> gpuPairs, List<RouteDecision> gpuNics, List<RouteDecision> gpuNvmes)
{
    public NodeDecisions
    {
        requireNonNull(node, "node is null");
        gpuPairs = List.copyOf(requireNonNull(gpuPairs, "gpuPairs is null"));
        gpuNics = List.copyOf(requireNonNull(gpuNics, "gpuNics is null"));
        gpuNvmes = List.copyOf(requireNonNull(gpuNvmes, "gpuNvmes is null"));
    }
}
