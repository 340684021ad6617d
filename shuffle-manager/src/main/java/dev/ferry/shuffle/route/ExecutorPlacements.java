package dev.ferry.shuffle.route;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.model.Gpu;
import dev.ferry.topology.model.NodeTopology;

/**
 * Assigns executors to (node, GPU) of a topology file. An executor listed in the override
 * ({@code "<executorId>=<node>[:<gpu>],..."}) gets that place. Otherwise, on a node of the file named
 * like the executor's host, it takes that node and GPU {@code id mod gpus}; and where no node has
 * its host name (a simulated cluster, e.g. {@code local-cluster[N,...]}) executors go round-robin
 * in executor-id order: executor {@code i} on node {@code i mod nodes}, GPU {@code (i / nodes) mod
 * gpus} of that node. Executor ids that are not numbers count by their hash.
 */
public final class ExecutorPlacements
{
    private ExecutorPlacements() {}

    public static ExecutorPlace assign(ClusterTopology cluster, String executorId, String hostname, String override)
    {
        List<NodeTopology> nodes = cluster.nodes();
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("Topology " + cluster.name() + " has no nodes");
        }
        Map<String, ExecutorPlace> overrides = parseOverride(override);
        ExecutorPlace listed = overrides.get(executorId);
        if (listed != null) {
            NodeTopology node = cluster.node(listed.node())
                    .orElseThrow(() -> new IllegalArgumentException("Executor " + executorId + " placed on node '" + listed.node() + "', not in topology " + cluster.name()));
            listed.gpu().ifPresent(gpu -> node.gpu(gpu)
                    .orElseThrow(() -> new IllegalArgumentException("Executor " + executorId + " placed on GPU '" + gpu + "', not on node " + node.hostname())));
            return listed;
        }
        int ordinal = ordinal(executorId);
        Optional<NodeTopology> own = cluster.node(hostname);
        if (own.isPresent()) {
            return new ExecutorPlace(own.get().hostname(), gpu(own.get(), ordinal));
        }
        NodeTopology node = nodes.get(ordinal % nodes.size());
        return new ExecutorPlace(node.hostname(), gpu(node, ordinal / nodes.size()));
    }

    private static Optional<String> gpu(NodeTopology node, int ordinal)
    {
        List<Gpu> gpus = node.gpus();
        return gpus.isEmpty() ? Optional.empty() : Optional.of(gpus.get(ordinal % gpus.size()).name());
    }

    private static int ordinal(String executorId)
    {
        try {
            return Math.max(0, Integer.parseInt(executorId));
        }
        catch (NumberFormatException e) {
            return executorId.hashCode() & Integer.MAX_VALUE;
        }
    }

    static Map<String, ExecutorPlace> parseOverride(String override)
    {
        Map<String, ExecutorPlace> places = new HashMap<>();
        if (override == null || override.isBlank()) {
            return places;
        }
        for (String entry : override.split(",")) {
            String trimmed = entry.trim();
            if (trimmed.isEmpty()) {
                continue;
            }
            int equals = trimmed.indexOf('=');
            if (equals <= 0 || equals == trimmed.length() - 1) {
                throw new IllegalArgumentException("Executor placement '" + trimmed + "' is not <executorId>=<node>[:<gpu>]");
            }
            String place = trimmed.substring(equals + 1);
            int colon = place.lastIndexOf(':');
            ExecutorPlace parsed = colon < 0 ? new ExecutorPlace(place, Optional.empty())
                    : new ExecutorPlace(place.substring(0, colon), Optional.of(place.substring(colon + 1)));
            places.put(trimmed.substring(0, equals).trim(), parsed);
        }
        return places;
    }
}
