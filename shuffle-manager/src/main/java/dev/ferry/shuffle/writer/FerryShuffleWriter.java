package dev.ferry.shuffle.writer;

import java.io.IOException;

import dev.ferry.shuffle.ArrowShuffleSerializer;
import dev.ferry.shuffle.FerryShuffleHandle;
import dev.ferry.shuffle.FerryShuffleRuntime;
import dev.ferry.shuffle.format.EncodingSettings;
import dev.ferry.shuffle.format.MapOutputEncoder;
import dev.ferry.shuffle.store.MapOutputId;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.scheduler.MapStatus;
import org.apache.spark.shuffle.ShuffleWriteMetricsReporter;
import org.apache.spark.shuffle.ShuffleWriter;
import org.apache.spark.sql.catalyst.InternalRow;
import scala.Option;
import scala.Product2;
import scala.collection.Iterator;

import static java.util.Objects.requireNonNull;

/**
 * Map side of a Ferry shuffle. Records are (reduce partition, row) pairs whose partition Spark's
 * own exchange code computed (so hash, range, round-robin and single partitioning place every row
 * exactly where Spark would); rows may be UnsafeRows or views into a columnar batch. They are
 * appended to per-partition Arrow batches, serialized with per-buffer compression, and committed
 * to the executor's map output store; the block sizes go to the MapStatus.
 */
public final class FerryShuffleWriter<K, V>
        extends ShuffleWriter<K, V>
{
    private final FerryShuffleRuntime runtime;
    private final FerryShuffleHandle<K, V, ?> handle;
    private final long mapId;
    private final TaskContext context;
    private final ShuffleWriteMetricsReporter metrics;
    private long[] partitionLengths;
    private MapStatus mapStatus;
    private boolean committed;

    public FerryShuffleWriter(FerryShuffleRuntime runtime, FerryShuffleHandle<K, V, ?> handle, long mapId, TaskContext context, ShuffleWriteMetricsReporter metrics)
    {
        this.runtime = requireNonNull(runtime, "runtime is null");
        this.handle = requireNonNull(handle, "handle is null");
        this.mapId = mapId;
        this.context = requireNonNull(context, "context is null");
        this.metrics = requireNonNull(metrics, "metrics is null");
    }

    @Override
    public void write(Iterator<Product2<K, V>> records)
            throws IOException
    {
        ArrowShuffleSerializer serializer = handle.serializer();
        int partitions = handle.numPartitions();
        MapOutputMemory memory = new MapOutputMemory(context.taskMemoryManager());
        EncodingSettings encoding = runtime.encodingFor(serializer.encoding());
        try (BufferAllocator allocator = runtime.allocator().newChildAllocator("ferry-map-" + mapId, 0, runtime.taskArrowLimit());
                MapOutputEncoder encoder = new MapOutputEncoder(serializer.schema(), partitions, allocator, encoding, memory,
                        () -> SparkEnv.get().blockManager().diskBlockManager().createTempLocalBlock()._2().toPath())) {
            memory.attach(encoder);
            while (records.hasNext()) {
                Product2<K, V> record = records.next();
                encoder.append((Integer) record._1(), (InternalRow) record._2());
            }
            // Write time, as Spark's writers count it: producing the stored bytes (batch serialization
            // and compression, the last flush and the store's commit), not the rows' appends.
            long serializedWhileAppending = encoder.serializeNanos();
            long before = System.nanoTime();
            encoder.finish();
            MapOutputId id = new MapOutputId(handle.shuffleId(), mapId, context.partitionId(), context.stageId());
            long spilled = runtime.store().commit(id, encoder);
            committed = true;
            long encodeNanos = serializedWhileAppending + System.nanoTime() - before;

            partitionLengths = encoder.blockLengths();
            long bytes = 0;
            for (long length : partitionLengths) {
                bytes += length;
            }
            metrics.incBytesWritten(bytes);
            metrics.incRecordsWritten(encoder.records());
            metrics.incWriteTime(encodeNanos);
            serializer.metrics().dataSize().add(encoder.uncompressedBytes());
            serializer.metrics().addMapCodec(encoding.compression());
            // Spilled: the payloads the encoder moved to disk when Spark asked for memory, and the
            // outputs the store kept on disk instead of in memory.
            long toDisk = spilled + encoder.diskBytesSpilled();
            if (encoder.memoryBytesSpilled() > 0) {
                context.taskMetrics().incMemoryBytesSpilled(encoder.memoryBytesSpilled());
                serializer.metrics().memorySpilled().add(encoder.memoryBytesSpilled());
            }
            if (toDisk > 0) {
                context.taskMetrics().incDiskBytesSpilled(toDisk);
                serializer.metrics().spillSize().add(toDisk);
            }
            // Ferry's memory in the task's peak: the payload heap Spark granted and the Arrow
            // memory of the open batches, which Spark's memory manager does not see.
            context.taskMetrics().incPeakExecutionMemory(encoder.peakHeldBytes() + allocator.getPeakMemoryAllocation());
            // Ferry's reducers find the output through this location (with the TCP port in its topology info).
            mapStatus = MapStatus.apply(runtime.location(), encoder.plannedSizes(), mapId, 0L);
        }
    }

    @Override
    public Option<MapStatus> stop(boolean success)
    {
        if (success && mapStatus != null) {
            return Option.apply(mapStatus);
        }
        if (committed) {
            // A failed or aborted attempt must not leave an output behind that nobody will ever read.
            runtime.store().remove(handle.shuffleId(), mapId);
        }
        return Option.empty();
    }

    @Override
    public long[] getPartitionLengths()
    {
        return partitionLengths == null ? new long[0] : partitionLengths.clone();
    }
}
