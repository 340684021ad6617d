package dev.ferry.shuffle.reader;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.ferry.shuffle.ArrowShuffleSerializer;
import dev.ferry.shuffle.FerryShuffleHandle;
import dev.ferry.shuffle.FerryShuffleRuntime;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.memory.MemoryMode;
import org.apache.spark.shuffle.ShuffleReadMetricsReporter;
import org.apache.spark.shuffle.ShuffleReader;
import org.apache.spark.storage.BlockId;
import org.apache.spark.storage.BlockManagerId;
import org.apache.spark.storage.ShuffleBlockId;
import org.apache.spark.util.TaskCompletionListener;
import scala.Product2;
import scala.Tuple2;
import scala.Tuple3;
import scala.collection.Iterator;
import scala.collection.Seq;

import static java.util.Objects.requireNonNull;

/**
 * Reduce side of a Ferry shuffle: asks the MapOutputTracker where the map outputs of the wanted
 * map and reduce ranges are (AQE's coalesced, skew-split and local reads are all such ranges),
 * splits them into this executor's blocks and per-peer fetch requests, and yields
 * (reduce partition, ColumnarBatch of ArrowColumnVector) records.
 */
public final class FerryShuffleReader<K, C>
        implements ShuffleReader<K, C>
{
    private final FerryShuffleRuntime runtime;
    private final FerryShuffleHandle<K, ?, C> handle;
    private final int startMapIndex;
    private final int endMapIndex;
    private final int startPartition;
    private final int endPartition;
    private final TaskContext context;
    private final ShuffleReadMetricsReporter metrics;

    public FerryShuffleReader(FerryShuffleRuntime runtime, FerryShuffleHandle<K, ?, C> handle, int startMapIndex, int endMapIndex, int startPartition, int endPartition,
            TaskContext context, ShuffleReadMetricsReporter metrics)
    {
        this.runtime = requireNonNull(runtime, "runtime is null");
        this.handle = requireNonNull(handle, "handle is null");
        this.startMapIndex = startMapIndex;
        this.endMapIndex = endMapIndex;
        this.startPartition = startPartition;
        this.endPartition = endPartition;
        this.context = requireNonNull(context, "context is null");
        this.metrics = requireNonNull(metrics, "metrics is null");
    }

    @Override
    @SuppressWarnings("unchecked")
    public Iterator<Product2<K, C>> read()
    {
        List<PendingBlock> local = new ArrayList<>();
        Map<BlockManagerId, List<PendingBlock>> remote = new LinkedHashMap<>();
        Iterator<Tuple2<BlockManagerId, Seq<Tuple3<BlockId, Object, Object>>>> locations = SparkEnv.get().mapOutputTracker()
                .getMapSizesByExecutorId(handle.shuffleId(), startMapIndex, endMapIndex, startPartition, endPartition);
        while (locations.hasNext()) {
            Tuple2<BlockManagerId, Seq<Tuple3<BlockId, Object, Object>>> location = locations.next();
            BlockManagerId address = location._1();
            boolean isLocal = address.executorId().equals(runtime.executorId());
            Iterator<Tuple3<BlockId, Object, Object>> blocks = location._2().iterator();
            while (blocks.hasNext()) {
                Tuple3<BlockId, Object, Object> block = blocks.next();
                if (!(block._1() instanceof ShuffleBlockId)) {
                    throw new IllegalStateException("Ferry shuffles read single shuffle blocks, got " + block._1());
                }
                ShuffleBlockId id = (ShuffleBlockId) block._1();
                PendingBlock pending = new PendingBlock(address, new ShuffleBlockRef(id.shuffleId(), id.mapId(), id.reduceId()), (Long) block._2(), (Integer) block._3());
                if (isLocal) {
                    local.add(pending);
                }
                else {
                    remote.computeIfAbsent(address, ignored -> new ArrayList<>()).add(pending);
                }
            }
        }
        ArrowShuffleSerializer serializer = handle.serializer();
        BufferAllocator allocator = runtime.allocator().newChildAllocator("ferry-reduce-" + context.taskAttemptId(), 0, runtime.taskArrowLimit());
        ColumnarBlockIterator iterator;
        try {
            iterator = new ColumnarBlockIterator(handle.shuffleId(), runtime.executorId(), runtime.store(), runtime.transport(), allocator, serializer.schema(),
                    local, requests(remote, runtime.maxBytesInFlight()), runtime.maxBytesInFlight(), runtime.fetchThreads(), metrics, serializer.metrics(), context);
        }
        catch (RuntimeException e) {
            allocator.close();
            throw e;
        }
        if (context.taskMemoryManager().getTungstenMemoryMode() == MemoryMode.OFF_HEAP) {
            iterator.account(new FetchedBlockMemory(context.taskMemoryManager(), iterator));
        }
        context.addTaskCompletionListener((TaskCompletionListener) completed -> {
            iterator.close();
            // The fetched blocks and the batches handed to Spark are Arrow memory Spark's memory
            // manager does not see: their peak goes into the task's peak execution memory.
            completed.taskMetrics().incPeakExecutionMemory(allocator.getPeakMemoryAllocation());
            allocator.close();
            completed.taskMetrics().mergeShuffleReadMetrics();
        });
        return (Iterator<Product2<K, C>>) (Iterator<?>) iterator;
    }

    /**
     * Per peer, consecutive blocks grouped into requests of at most a fifth of {@code maxBytesInFlight}
     * (a larger block goes alone), as Spark's fetcher sizes them, so about five requests are out at once;
     * then taken one peer at a time in turn, so the requests out at once go to several peers.
     */
    static List<List<PendingBlock>> requests(Map<BlockManagerId, List<PendingBlock>> remote, long maxBytesInFlight)
    {
        long target = Math.max(maxBytesInFlight / 5, 1);
        List<List<List<PendingBlock>>> perPeer = new ArrayList<>();
        for (List<PendingBlock> blocks : remote.values()) {
            List<List<PendingBlock>> requests = new ArrayList<>();
            List<PendingBlock> request = new ArrayList<>();
            long bytes = 0;
            for (PendingBlock block : blocks) {
                if (!request.isEmpty() && bytes + block.size() > target) {
                    requests.add(request);
                    request = new ArrayList<>();
                    bytes = 0;
                }
                request.add(block);
                bytes += block.size();
            }
            if (!request.isEmpty()) {
                requests.add(request);
            }
            perPeer.add(requests);
        }
        List<List<PendingBlock>> interleaved = new ArrayList<>();
        for (int round = 0; interleaved.size() < perPeer.stream().mapToInt(List::size).sum(); round++) {
            for (List<List<PendingBlock>> requests : perPeer) {
                if (round < requests.size()) {
                    interleaved.add(requests.get(round));
                }
            }
        }
        return interleaved;
    }
}
