package dev.ferry.plugin;

import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorRemoved;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * Drops executors that left (lost, decommissioned, killed by dynamic allocation) from the driver's
 * {@link ClusterRegistry}, so the cluster map never lists a dead peer, and records each departure
 * in the {@link DepartureLog} that executors poll ({@link DepartureWatcher}) to close their
 * connections to it.
 */
final class ExecutorDepartures
        extends SparkListener
{
    private static final Logger LOG = LoggerFactory.getLogger(ExecutorDepartures.class);

    private final ClusterRegistry registry;
    private final DepartureLog log;

    ExecutorDepartures(ClusterRegistry registry)
    {
        this(registry, new DepartureLog());
    }

    ExecutorDepartures(ClusterRegistry registry, DepartureLog log)
    {
        this.registry = requireNonNull(registry, "registry is null");
        this.log = requireNonNull(log, "log is null");
    }

    @Override
    public void onExecutorRemoved(SparkListenerExecutorRemoved removed)
    {
        boolean known = registry.executor(removed.executorId()).isPresent();
        registry.remove(removed.executorId());
        log.record(removed.executorId());
        LOG.info("Ferry: executor {} left ({}){}", removed.executorId(), removed.reason(), known ? "; dropped from the cluster map" : "");
    }
}
