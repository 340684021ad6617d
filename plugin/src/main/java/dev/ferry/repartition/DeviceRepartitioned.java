package dev.ferry.repartition;

import dev.ferry.gds.api.DeviceBatches;
import dev.ferry.gds.api.DevicePartitionFunction;
import dev.ferry.gds.spark.GdsReaderFactory;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.java.JavaSparkContext;

import java.io.Serializable;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * A planned device repartition ({@link DeviceRepartition#of}). {@link #forEachPartition} runs it
 * as two Spark jobs: the map job (one task per scan partition) leaves each task's output
 * partitions as packed blocks in its executor's device store under a fresh shuffle id; the reduce
 * job (one task per output partition) fetches, unpacks and hands them to the function. The blocks
 * are removed from every executor's store when the run ends, failed or not (Spark's
 * {@code RemoveShuffle}, which Ferry's shuffle manager answers by releasing the shuffle's outputs).
 *
 * <p>Resilient to a lost executor, as Spark is for its own shuffles, in rounds
 * ({@link RepartitionRounds}): Spark does not track these blocks, so the driver does. Before the
 * reduce job it checks that every executor holding map outputs is still registered with the
 * driver's block manager master; and a reduce task that cannot fetch from a map's executor because
 * that executor is gone (the driver no longer has it registered, or its block server refuses
 * connections: {@link ExecutorGone}) does not run the function but reports the lost maps. The
 * driver then reruns every map of the lost executors (same shuffle id and map indexes; new map ids,
 * the rerun attempts' task ids) and the reduce tasks of only the partitions that reported, so the
 * function runs once per partition that succeeded ({@link RepartitionedResult#round()} says which
 * round's did). At most {@code spark.task.maxFailures} rounds; the losses of the last fail the run
 * naming the executors. Each loss is logged with the executor, why it counts as gone, the maps
 * rerun and the round, and told to the {@link RepartitionObserver} if one is given. Any other
 * fetch failure (a corrupt or cut-short block, a timeout, a live executor without the block) fails
 * the reduce task as before.
 */
public final class DeviceRepartitioned
{
    private final DeviceBatches.DeviceScan scan;
    private final int[] keyColumns;
    private final int partitions;
    private final RepartitionObserver observer;

    DeviceRepartitioned(DeviceBatches.DeviceScan scan, int[] keyColumns, int partitions)
    {
        this(scan, keyColumns, partitions, new RepartitionObserver() {});
    }

    private DeviceRepartitioned(DeviceBatches.DeviceScan scan, int[] keyColumns, int partitions, RepartitionObserver observer)
    {
        this.scan = requireNonNull(scan, "scan is null");
        this.keyColumns = keyColumns.clone();
        this.partitions = partitions;
        this.observer = requireNonNull(observer, "observer is null");
    }

    public int partitions()
    {
        return partitions;
    }

    /** This repartition, telling {@code observer} on the driver about its rounds (map jobs ended, executors lost). */
    public DeviceRepartitioned observedBy(RepartitionObserver observer)
    {
        return new DeviceRepartitioned(scan, keyColumns, partitions, observer);
    }

    /** Runs {@code function} on every output partition's device batches, one successful task per partition; the results in partition order. */
    public <R extends Serializable> List<RepartitionedResult<R>> forEachPartition(DevicePartitionFunction<R> function)
    {
        requireNonNull(function, "function is null");
        GdsReaderFactory factory = scan.readerFactory();
        JavaSparkContext context = JavaSparkContext.fromSparkContext(scan.spark().sparkContext());
        int shuffleId = scan.spark().sparkContext().newShuffleId();
        try {
            return new RepartitionRounds<>(context, factory, scan.partitions(), shuffleId, keyColumns, partitions, observer, function).run();
        }
        finally {
            // Every round's blocks, on every executor still alive.
            SparkEnv.get().blockManager().master().removeShuffle(shuffleId, true);
        }
    }
}
