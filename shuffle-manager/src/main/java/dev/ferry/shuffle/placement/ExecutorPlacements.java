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
    private static final String KEY = "spark.ferry.shuffle.executorPlacement";

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
            return resolve(cluster, executorId, listed);
        }
        int ordinal = ordinal(executorId);
        Optional<NodeTopology> own = cluster.node(hostname);
        NodeTopology node = own.orElseGet(() -> nodes.get(ordinal % nodes.size()));
        if (!sparkGpuAddresses.isEmpty()) {
            return new ExecutorPlace(node.hostname(), Optional.of(assignedGpu(node, executorId, sparkGpuAddresses.get(0)).name()));
        }
        return new ExecutorPlace(node.hostname(), gpu(node, own.isPresent() ? ordinal : ordinal / nodes.size()));
    }

    /**
     * Checks every entry of {@code spark.ferry.shuffle.executorPlacement} against the topology file
     * (the driver does, at start, so a wrong node or GPU fails the application there instead of
     * killing the executors it names one by one).
     */
    public static void check(ClusterTopology cluster, String override)
    {
        for (Map.Entry<String, ExecutorPlace> entry : parseOverride(override).entrySet()) {
            resolve(cluster, entry.getKey(), entry.getValue());
        }
    }

    /** A listed place with its GPU named as the topology names it ({@code GPU1} for {@code 1}, {@code gpu1} or {@code GPU1}). */
    private static ExecutorPlace resolve(ClusterTopology cluster, String executorId, ExecutorPlace listed)
    {
        NodeTopology node = cluster.node(listed.node())
                .orElseThrow(() -> new IllegalArgumentException(KEY + ": executor " + executorId + " placed on node '" + listed.node() + "', not in topology "
                        + cluster.name() + " (its nodes: " + cluster.nodes().stream().map(NodeTopology::hostname).toList() + ")"));
        if (listed.gpu().isEmpty()) {
            return listed;
        }
        String written = listed.gpu().get();
        Gpu gpu = listedGpu(node, written).orElseThrow(() -> new IllegalArgumentException(KEY + ": executor " + executorId + " placed on GPU '" + written
                + "', not on node " + node.hostname() + " (its GPUs: " + node.gpus().stream().map(g -> g.index() + " or " + g.name()).toList() + ")"));
        return new ExecutorPlace(node.hostname(), Optional.of(gpu.name()));
    }

    /** A GPU as people write it in a placement: its name ({@code GPU0}, any case), its index ({@code 0}) or {@code GPU<index>}. */
    static Optional<Gpu> listedGpu(NodeTopology node, String written)
    {
        String trimmed = written.trim();
        for (Gpu gpu : node.gpus()) {
            if (gpu.name().equalsIgnoreCase(trimmed)) {
                return Optional.of(gpu);
            }
        }
        String digits = trimmed.regionMatches(true, 0, "GPU", 0, 3) ? trimmed.substring(3) : trimmed;
        if (digits.isEmpty() || !digits.chars().allMatch(Character::isDigit) || digits.length() > 6) {
            return Optional.empty();
        }
        int index = Integer.parseInt(digits);
        return node.gpus().stream().filter(gpu -> gpu.index() == index).findFirst();
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

    /** The syntax of the setting alone (no topology needed): what its key checks at start. */
    public static void checkSyntax(String override)
    {
        parseOverride(override);
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
                throw new IllegalArgumentException("executor placement '" + trimmed + "' is not <executorId>=<node>[:<gpu>] (e.g. 1=dgx-a:GPU0 or 1=dgx-a:0)");
            }
            String place = trimmed.substring(equals + 1).trim();
            int colon = place.lastIndexOf(':');
            ExecutorPlace parsed = colon < 0 ? new ExecutorPlace(place, Optional.empty())
                    : new ExecutorPlace(place.substring(0, colon), Optional.of(place.substring(colon + 1)));
            if (places.put(trimmed.substring(0, equals).trim(), parsed) != null) {
                throw new IllegalArgumentException("executor placement lists executor " + trimmed.substring(0, equals).trim() + " twice");
            }
        }
        return places;
    }
}
