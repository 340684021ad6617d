package dev.ferry.shuffle.placement;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.model.Gpu;
import dev.ferry.topology.model.NodeTopology;

/**
 * Assigns executors to (node, GPU) of a topology file. An executor listed in the override
 * ({@code "<executorId>=<node>[:<gpu>],..."}) gets that place. Otherwise its node is the one named
 * like the executor's host, or, where no node has its host name (a simulated cluster, e.g.
 * {@code local-cluster[N,...]}), node {@code i mod nodes} in executor-id order. Its GPU is the one
 * Spark assigned (the executor's {@code gpu} resource address: an NVML index, as Spark's GPU
 * discovery script reports, or a GPU's name or UUID); only without an assignment does it fall back
 * to GPU {@code id mod gpus} (host-named node) or {@code (i / nodes) mod gpus}. Executor ids that
 * are not numbers count by their hash.
 */
public final class ExecutorPlacements
{
    private ExecutorPlacements() {}

    public static ExecutorPlace assign(ClusterTopology cluster, String executorId, String hostname, String override)
    {
        return assign(cluster, executorId, hostname, override, List.of());
    }

    /**
     * As above, with the {@code gpu} addresses Spark's resource scheduling gave the executor
     * (empty without GPU scheduling); the first one is the executor's GPU. An address that names
     * no GPU of the executor's node is an error naming both.
     */
    public static ExecutorPlace assign(ClusterTopology cluster, String executorId, String hostname, String override, List<String> sparkGpuAddresses)
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
        NodeTopology node = own.orElseGet(() -> nodes.get(ordinal % nodes.size()));
        if (!sparkGpuAddresses.isEmpty()) {
            return new ExecutorPlace(node.hostname(), Optional.of(assignedGpu(node, executorId, sparkGpuAddresses.get(0)).name()));
        }
        return new ExecutorPlace(node.hostname(), gpu(node, own.isPresent() ? ordinal : ordinal / nodes.size()));
    }

    /** The GPU of {@code node} that Spark's address names: its NVML index, else its name or UUID. */
    public static Gpu assignedGpu(NodeTopology node, String executorId, String address)
    {
        String trimmed = address.trim();
        for (Gpu gpu : node.gpus()) {
            if (trimmed.equals(Integer.toString(gpu.index())) || trimmed.equals(gpu.name()) || gpu.uuid().map(trimmed::equals).orElse(false)) {
                return gpu;
            }
        }
        throw new IllegalArgumentException("Executor " + executorId + " was assigned GPU address '" + trimmed + "' by Spark, but node " + node.hostname()
                + " has no GPU with that index, name or UUID (it has " + node.gpus().stream().map(gpu -> gpu.index() + "=" + gpu.name()).toList() + ")");
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
