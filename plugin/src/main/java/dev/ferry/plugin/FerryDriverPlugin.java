package dev.ferry.plugin;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.ferry.conf.SparkConfigSources;
import dev.ferry.plugin.explain.ExplainRegistration;
import dev.ferry.shuffle.UsableRoutes;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.model.NodeTopology;
import org.apache.spark.SparkContext;
import org.apache.spark.api.plugin.DriverPlugin;
import org.apache.spark.api.plugin.PluginContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Driver side: keeps the {@link ClusterRegistry} of where every executor runs, filled by the
 * executors' {@link ExecutorPlacement} messages, each checked ({@link NodeReports}) before its node joins the
 * probed cluster view executors ask for ({@link ClusterViewRequest}); executors that leave are dropped ({@link ExecutorDepartures}),
 * and executors asking which peers left ({@link DeparturesRequest}) are answered from the {@link DepartureLog}.
 */
public final class FerryDriverPlugin
        implements DriverPlugin
{
    private static final Logger LOG = LoggerFactory.getLogger(FerryDriverPlugin.class);
    // Spark runs one SparkContext per JVM; this lets the driver's planner code (and tests) reach the
    // registry of the context that is running now. Cleared at shutdown.
    private static final AtomicReference<ClusterRegistry> ACTIVE = new AtomicReference<>();

    private static final AtomicLong REJECTED_REPORTS = new AtomicLong();

    private final ClusterRegistry registry = new ClusterRegistry();
    private final DepartureLog departures = new DepartureLog();

    public static Optional<ClusterRegistry> active()
    {
        return Optional.ofNullable(ACTIVE.get());
    }

    /** Node reports refused by this JVM's driver plugin (malformed, oversized, or naming another host). */
    public static long rejectedReports()
    {
        return REJECTED_REPORTS.get();
    }

    @Override
    public Map<String, String> init(SparkContext context, PluginContext pluginContext)
    {
        // Refused here, the application fails at start naming the key, before any executor or query uses it.
        StartupChecks.Result checked = StartupChecks.run(context.conf());
        for (String warning : checked.warnings()) {
            LOG.warn("Ferry: {}", warning);
        }
        // The routes an exchange's metrics list: the file's cluster, else the executors' probed nodes as they join.
        Optional<ClusterTopology> file = checked.topologyFile();
        UsableRoutes.install(() -> file.isPresent() ? file : registry.view());
        ExplainRegistration.register(context.conf());
        StartLine.printOnce(LOG, "driver of " + context.appName(), SparkConfigSources.of(context.conf()));
        ACTIVE.set(registry);
        context.addSparkListener(new ExecutorDepartures(registry, departures));
        return Map.of();
    }

    @Override
    public Object receive(Object message)
    {
        if (message instanceof ExecutorPlacement placement) {
            NodeTopology node;
            try {
                node = NodeReports.validate(placement);
            }
            catch (IllegalArgumentException e) {
                // Refused whole: a malformed report never reaches the cluster view routes are decided by.
                REJECTED_REPORTS.incrementAndGet();
                LOG.warn("Ferry: refused a node report, not merged into the cluster view: {}", e.getMessage());
                return null;
            }
            if (node.hostname().equals(placement.hostname())) {
                registry.register(placement, node);
            }
            else {
                // A topology file's simulated node (placed by the file, not probed): where it runs is recorded, the probed view is not touched.
                registry.register(placement);
            }
            // The executor logs its inventory itself; here the join, and the inventory only at DEBUG.
            LOG.info("Ferry: executor {} on {} (GPUs {}) joined", placement.executorId(), placement.hostname(), placement.gpuAddresses());
            LOG.debug("Ferry: executor {} on {}: {}", placement.executorId(), placement.hostname(), placement.summary());
            // Executors use the one-way send(); a reply would be dropped with a warning.
            return null;
        }
        if (message instanceof ClusterViewRequest) {
            // Asked by each executor's ProbedClusterView; JDK types only (see ClusterViewAnswer).
            return new ClusterViewAnswer(registry.version(), registry.view()).toWire();
        }
        if (message instanceof DeparturesRequest) {
            // Asked (not sent) by each executor's DepartureWatcher: the reply is its answer, in JDK types (see Departures).
            return departures.since(((DeparturesRequest) message).sinceVersion()).toWire();
        }
        throw new IllegalArgumentException("Ferry driver plugin got an unknown message " + message.getClass().getName());
    }

    @Override
    public void shutdown()
    {
        ACTIVE.compareAndSet(registry, null);
        UsableRoutes.reset();
    }
}
