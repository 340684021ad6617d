package dev.ferry.plugin;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import dev.ferry.shuffle.placement.ClusterView;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.model.NodeTopology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * An executor's copy of the driver's probed cluster view: asked once when first needed, then again
 * only for a peer whose node it lacks, at most once per {@link #REASK_NANOS} (a burst of fetches from
 * an unknown peer costs one ask, and a peer that never reports costs one ask per interval, not one per
 * fetch). This executor's own node is always in it, from its own probes, so routes to itself never
 * wait for the driver. An ask that fails keeps the cached view, said at WARN.
 */
final class ProbedClusterView
        implements ClusterView
{
    private static final Logger LOG = LoggerFactory.getLogger(ProbedClusterView.class);
    static final long REASK_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** The driver's plugin endpoint: {@code PluginContext.ask}. */
    interface Driver
    {
        Object ask(Object message)
                throws Exception;
    }

    private final String executorId;
    private final NodeTopology own;
    private final Driver driver;
    private final LongSupplier nanoTime;
    private final AtomicLong asks = new AtomicLong();
    private ClusterTopology cluster;
    private boolean asked;
    private long lastAsk;

    ProbedClusterView(String executorId, NodeTopology own, Driver driver)
    {
        this(executorId, own, driver, System::nanoTime);
    }

    ProbedClusterView(String executorId, NodeTopology own, Driver driver, LongSupplier nanoTime)
    {
        this.executorId = requireNonNull(executorId, "executorId is null");
        this.own = requireNonNull(own, "own is null");
        this.driver = requireNonNull(driver, "driver is null");
        this.nanoTime = requireNonNull(nanoTime, "nanoTime is null");
        this.cluster = ClusterTopology.single(own);
    }

    @Override
    public synchronized ClusterTopology cluster()
    {
        if (!asked) {
            ask();
        }
        return cluster;
    }

    @Override
    public synchronized ClusterTopology refresh(String missingNode)
    {
        if (!asked || nanoTime.getAsLong() - lastAsk >= REASK_NANOS) {
            ask();
            if (cluster.node(missingNode).isEmpty()) {
                LOG.info("Ferry executor {}: node {} is not in the driver's probed cluster view yet ({}); its peers are routed over TCP until it is",
                        executorId, missingNode, cluster.nodes().stream().map(NodeTopology::hostname).toList());
            }
        }
        return cluster;
    }

    @Override
    public boolean refreshable()
    {
        return true;
    }

    /** Asks made to the driver. */
    long asks()
    {
        return asks.get();
    }

    private void ask()
    {
        asked = true;
        lastAsk = nanoTime.getAsLong();
        asks.incrementAndGet();
        try {
            ClusterViewAnswer answer = ClusterViewAnswer.fromWire(driver.ask(new ClusterViewRequest(executorId)));
            List<NodeTopology> nodes = new ArrayList<>();
            nodes.add(own);
            answer.cluster().ifPresent(view -> view.nodes().stream().filter(node -> !node.hostname().equals(own.hostname())).forEach(nodes::add));
            cluster = new ClusterTopology("probed", nodes);
        }
        catch (Exception e) {
            LOG.warn("Ferry executor {} could not get the probed cluster view from the driver ({}); it keeps the {} node(s) it knows", executorId, e.toString(),
                    cluster.nodes().size());
        }
    }
}
