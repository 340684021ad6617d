package dev.ferry.topology.model;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/** A set of nodes with distinct host names, for cluster routes and offline simulation. */
public record ClusterTopology(String name, List<NodeTopology> nodes)
{
    public ClusterTopology
    {
        requireNonNull(name, "name is null");
        nodes = List.copyOf(requireNonNull(nodes, "nodes is null"));
        Set<String> hostnames = new HashSet<>();
        for (NodeTopology node : nodes) {
            if (!hostnames.add(node.hostname())) {
                throw new IllegalArgumentException("Cluster " + name + ": host name used twice: " + node.hostname());
            }
        }
    }

    public static ClusterTopology single(NodeTopology node)
    {
        return new ClusterTopology(node.hostname(), List.of(node));
    }

    public Optional<NodeTopology> node(String hostname)
    {
        return nodes.stream().filter(node -> node.hostname().equals(hostname)).findFirst();
    }
}
