package dev.ferry.topology.report;

import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.route.RouteDecision;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The decisions inside one node.
 *
 * @param node the node
 * @param gpuPairs every unordered GPU pair
 * @param gpuNics every GPU with every RDMA NIC
 * @param gpuNvmes every GPU with every NVMe drive (for a file on ext4 directly on the drive)
 * @param fileReads how a file asked about would be read, when one was
 */
public record NodeDecisions(
        NodeTopology node,
        List<RouteDecision> gpuPairs,
        List<RouteDecision> gpuNics,
        List<RouteDecision> gpuNvmes,
        Optional<FileReads> fileReads)
{
    public NodeDecisions
    {
        requireNonNull(node, "node is null");
        gpuPairs = List.copyOf(requireNonNull(gpuPairs, "gpuPairs is null"));
        gpuNics = List.copyOf(requireNonNull(gpuNics, "gpuNics is null"));
        gpuNvmes = List.copyOf(requireNonNull(gpuNvmes, "gpuNvmes is null"));
        requireNonNull(fileReads, "fileReads is null");
    }
}
