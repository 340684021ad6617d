package dev.ferry.plugin;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.model.NodeTopology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * The driver's map of where each executor runs, and the cluster view executors route by: one node
 * per host, the first validated report of that host (executors of one host probe the same machine; a
 * later report that differs is logged, not merged, so a route never mixes two views of one machine).
 * Thread-safe: executors report concurrently through the plugin RPC endpoint.
 */
public final class ClusterRegistry
{
    private static final Logger LOG = LoggerFactory.getLogger(ClusterRegistry.class);

    private final Map<String, ExecutorPlacement> executors = new ConcurrentHashMap<>();
    private final Map<String, NodeTopology> nodes = new LinkedHashMap<>();
    private long version;

    public void register(ExecutorPlacement placement)
    {
        requireNonNull(placement, "placement is null");
        executors.put(placement.executorId(), placement);
    }

    /** {@code placement} with its validated node ({@link NodeReports}): the node joins the view unless its host already has one. */
    public void register(ExecutorPlacement placement, NodeTopology node)
    {
        requireNonNull(node, "node is null");
        register(placement);
        synchronized (nodes) {
            NodeTopology known = nodes.get(node.hostname());
            if (known == null) {
                nodes.put(node.hostname(), node);
                version++;
            }
            else if (!known.equals(node)) {
                LOG.warn("Ferry: executor {} reported host {} with {} GPU(s) and {} NIC(s); the cluster view keeps the host's first report ({} GPU(s), {} NIC(s))",
                        placement.executorId(), node.hostname(), node.gpus().size(), node.nics().size(), known.gpus().size(), known.nics().size());
            }
        }
    }

    public void remove(String executorId)
    {
        executors.remove(executorId);
    }

    public Optional<ExecutorPlacement> executor(String executorId)
    {
        return Optional.ofNullable(executors.get(executorId));
    }

    public Map<String, ExecutorPlacement> executors()
    {
        return Map.copyOf(executors);
    }

    /** The probed cluster (one node per host that reported), empty before any report. */
    public Optional<ClusterTopology> view()
    {
        synchronized (nodes) {
            return nodes.isEmpty() ? Optional.empty() : Optional.of(new ClusterTopology("probed", new ArrayList<>(nodes.values())));
        }
    }

    /** Grows by one each time a host joins the view. */
    public long version()
    {
        synchronized (nodes) {
            return version;
        }
    }

    List<String> hosts()
    {
        synchronized (nodes) {
            return List.copyOf(nodes.keySet());
        }
    }
}
