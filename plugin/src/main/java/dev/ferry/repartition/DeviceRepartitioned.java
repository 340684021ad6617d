package dev.ferry.repartition;

import dev.ferry.gds.api.DeviceBatches;
import dev.ferry.gds.api.DevicePartitionFunction;
import dev.ferry.gds.spark.GdsReaderFactory;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.connector.read.InputPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Serializable;
import java.util.List;
import java.util.stream.IntStream;

import static java.util.Objects.requireNonNull;

/**
 * A planned device repartition ({@link DeviceRepartition#of}). {@link #forEachPartition} runs it
 * as two Spark jobs: the map job (one task per scan partition) leaves each task's output
 * partitions as packed blocks in its executor's device store under a fresh shuffle id; the reduce
 * job (one task per output partition) fetches, unpacks and hands them to the function. The blocks
 * are removed from every executor's store when the reduce job ends, failed or not (Spark's
 * {@code RemoveShuffle}, which Ferry's shuffle manager answers by releasing the shuffle's outputs).
 *
 * <p>Not yet resilient to a lost executor between the two jobs: its blocks are gone and the
 * reduce job fails naming the peer (no map task is rerun, as Spark's scheduler would for a
 * shuffle it tracks).
 */
public final class DeviceRepartitioned
{
    private static final Logger LOG = LoggerFactory.getLogger(DeviceRepartitioned.class);

    private final DeviceBatches.DeviceScan scan;
    private final int[] keyColumns;
    private final int partitions;

    DeviceRepartitioned(DeviceBatches.DeviceScan scan, int[] keyColumns, int partitions)
    {
        this.scan = requireNonNull(scan, "scan is null");
        this.keyColumns = keyColumns.clone();
        this.partitions = partitions;
    }

    public int partitions()
    {
        return partitions;
    }

    /** Runs {@code function} on every output partition's device batches, one task per partition; the results in partition order. */
    public <R extends Serializable> List<RepartitionedResult<R>> forEachPartition(DevicePartitionFunction<R> function)
    {
        requireNonNull(function, "function is null");
        GdsReaderFactory factory = scan.readerFactory();
        List<InputPartition> inputs = scan.partitions();
        JavaSparkContext context = JavaSparkContext.fromSparkContext(scan.spark().sparkContext());
        int shuffleId = scan.spark().sparkContext().newShuffleId();
        try {
            List<MapPieces> maps = inputs.isEmpty() ? List.of() : context.parallelize(inputs, inputs.size())
                    .mapPartitionsWithIndex(new RepartitionMapTask(factory, shuffleId, keyColumns, partitions), false)
                    .collect();
            LOG.info("Device repartition {}: {} map tasks left {} rows in their executors' device stores for {} partitions", shuffleId, maps.size(),
                    maps.stream().mapToLong(MapPieces::rows).sum(), partitions);
            return context.parallelize(IntStream.range(0, partitions).boxed().toList(), partitions)
                    .mapPartitionsWithIndex(new RepartitionReduceTask<>(factory.readSchema(), shuffleId, maps, function), false)
                    .collect();
        }
        finally {
            SparkEnv.get().blockManager().master().removeShuffle(shuffleId, true);
        }
    }
}
