package dev.ferry.plugin;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.spark.SparkContext;
import org.apache.spark.api.plugin.DriverPlugin;
import org.apache.spark.api.plugin.PluginContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Driver side: keeps the {@link ClusterRegistry} of where every executor runs, filled by the
 * executors' {@link ExecutorPlacement} messages; executors that leave are dropped ({@link ExecutorDepartures}),
 * and executors asking which peers left ({@link DeparturesRequest}) are answered from the {@link DepartureLog}.
 */
public final class FerryDriverPlugin
        implements DriverPlugin
{
    private static final Logger LOG = LoggerFactory.getLogger(FerryDriverPlugin.class);
    // Spark runs one SparkContext per JVM; this lets the driver's planner code (and tests) reach the
    // registry of the context that is running now. Cleared at shutdown.
    private static final AtomicReference<ClusterRegistry> ACTIVE = new AtomicReference<>();

    private final ClusterRegistry registry = new ClusterRegistry();
    private final DepartureLog departures = new DepartureLog();

    public static Optional<ClusterRegistry> active()
    {
        return Optional.ofNullable(ACTIVE.get());
    }

    @Override
    public Map<String, String> init(SparkContext context, PluginContext pluginContext)
    {
        ACTIVE.set(registry);
        context.addSparkListener(new ExecutorDepartures(registry, departures));
        LOG.info("Ferry driver plugin started for application {}", context.appName());
        return Map.of();
    }

    @Override
    public Object receive(Object message)
    {
        if (message instanceof ExecutorPlacement) {
            ExecutorPlacement placement = (ExecutorPlacement) message;
            registry.register(placement);
            LOG.info("Ferry: executor {} on {} (GPUs {}): {}", placement.executorId(), placement.hostname(), placement.gpuAddresses(), placement.summary());
            // Executors use the one-way send(); a reply would be dropped with a warning.
            return null;
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
    }
}
