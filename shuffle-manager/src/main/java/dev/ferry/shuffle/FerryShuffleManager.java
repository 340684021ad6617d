package dev.ferry.shuffle;

import dev.ferry.conf.SparkConfigSources;
import java.util.Optional;

import dev.ferry.conf.ConfigSource;
import dev.ferry.shuffle.reader.FerryShuffleReader;
import dev.ferry.shuffle.writer.FerryShuffleWriter;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.SparkConf;
import org.apache.spark.TaskContext;
import org.apache.spark.shuffle.ShuffleHandle;
import org.apache.spark.shuffle.ShuffleReadMetricsReporter;
import org.apache.spark.shuffle.ShuffleReader;
import org.apache.spark.shuffle.ShuffleWriteMetricsReporter;
import org.apache.spark.shuffle.ShuffleWriter;
import org.apache.spark.shuffle.sort.SortShuffleManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code spark.shuffle.manager=dev.ferry.shuffle.FerryShuffleManager}. A {@link SortShuffleManager}
 * (Spark checks for that type in places) that gives every ordinary shuffle, RDD or SQL, to Spark's
 * sort shuffle unchanged, and only the dependencies Ferry's exchange creates (marked by their
 * {@link ArrowShuffleSerializer}) to Ferry's Arrow writer and reader.
 */
public class FerryShuffleManager
        extends SortShuffleManager
{
    private static final Logger LOG = LoggerFactory.getLogger(FerryShuffleManager.class);

    private final ConfigSource config;
    private final boolean isDriver;
    private FerryShuffleRuntime runtime;
    private boolean stopped;

    public FerryShuffleManager(SparkConf conf, boolean isDriver)
    {
        super(conf);
        this.config = SparkConfigSources.of(conf);
        this.isDriver = isDriver;
    }

    @Override
    public <K, V, C> ShuffleHandle registerShuffle(int shuffleId, ShuffleDependency<K, V, C> dependency)
    {
        if (dependency.serializer() instanceof ArrowShuffleSerializer) {
            return new FerryShuffleHandle<>(shuffleId, dependency);
        }
        return super.registerShuffle(shuffleId, dependency);
    }

    @Override
    public <K, V> ShuffleWriter<K, V> getWriter(ShuffleHandle handle, long mapId, TaskContext context, ShuffleWriteMetricsReporter metrics)
    {
        if (handle instanceof FerryShuffleHandle) {
            @SuppressWarnings("unchecked")
            FerryShuffleHandle<K, V, ?> ferryHandle = (FerryShuffleHandle<K, V, ?>) handle;
            return new FerryShuffleWriter<>(runtime(), ferryHandle, mapId, context, metrics);
        }
        return super.getWriter(handle, mapId, context, metrics);
    }

    @Override
    public <K, C> ShuffleReader<K, C> getReader(ShuffleHandle handle, int startMapIndex, int endMapIndex, int startPartition, int endPartition, TaskContext context,
            ShuffleReadMetricsReporter metrics)
    {
        if (handle instanceof FerryShuffleHandle) {
            @SuppressWarnings("unchecked")
            FerryShuffleHandle<K, ?, C> ferryHandle = (FerryShuffleHandle<K, ?, C>) handle;
            return new FerryShuffleReader<>(runtime(), ferryHandle, startMapIndex, endMapIndex, startPartition, endPartition, context, metrics);
        }
        return super.getReader(handle, startMapIndex, endMapIndex, startPartition, endPartition, context, metrics);
    }

    @Override
    public boolean unregisterShuffle(int shuffleId)
    {
        FerryShuffleRuntime current;
        synchronized (this) {
            current = runtime;
        }
        if (current != null) {
            int released = current.store().removeShuffle(shuffleId);
            if (released > 0) {
                LOG.debug("Released {} Ferry map outputs of shuffle {}", released, shuffleId);
            }
        }
        return super.unregisterShuffle(shuffleId);
    }

    @Override
    public void stop()
    {
        FerryShuffleRuntime current;
        synchronized (this) {
            stopped = true;
            current = runtime;
            runtime = null;
        }
        try {
            if (current != null) {
                current.close();
            }
        }
        finally {
            super.stop();
        }
    }

    /** This executor's store, server and transport, started on first use; empty on a driver that never ran a task. */
    public synchronized Optional<FerryShuffleRuntime> runtimeIfStarted()
    {
        return Optional.ofNullable(runtime);
    }

    /** This executor's store, server and transport, started now if no shuffle task started them yet (for device consumers' tasks). */
    public FerryShuffleRuntime startedRuntime()
    {
        return runtime();
    }

    private synchronized FerryShuffleRuntime runtime()
    {
        if (stopped) {
            throw new IllegalStateException("Ferry shuffle manager is stopped");
        }
        if (runtime == null) {
            runtime = FerryShuffleRuntime.start(config);
            LOG.info("Ferry shuffle runtime started ({})", isDriver ? "driver, local mode" : "executor");
        }
        return runtime;
    }
}
