package dev.ferry.plugin;

import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorRemoved;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * Drops executors that left (lost, decommissioned, killed by dynamic allocation) from the driver's
 * {@link ClusterRegistry}, so the cluster map never lists a dead peer. Executors close their own
 * connections to a departed peer: the first failed fetch to it closes every pooled connection to it
 * (TcpShuffleTransport), and Spark stops asking for its blocks once its map outputs are unregistered.
 */
final class ExecutorDepartures
        extends SparkListener
{
    private static final Logger LOG = LoggerFactory.getLogger(ExecutorDepartures.class);

    private final ClusterRegistry registry;

    ExecutorDepartures(ClusterRegistry registry)
    {
        this.registry = requireNonNull(registry, "registry is null");
    }

    @Override
    public void onExecutorRemoved(SparkListenerExecutorRemoved removed)
    {
        boolean known = registry.executor(removed.executorId()).isPresent();
        registry.remove(removed.executorId());
        LOG.info("Ferry: executor {} left ({}){}", removed.executorId(), removed.reason(), known ? "; dropped from the cluster map" : "");
    }
}
