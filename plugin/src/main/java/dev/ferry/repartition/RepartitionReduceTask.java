package dev.ferry.repartition;

import dev.ferry.device.DeviceRuntime;
import dev.ferry.gds.api.DevicePartition;
import dev.ferry.gds.api.DevicePartitionFunction;
import dev.ferry.gds.device.DeviceBatch;
import dev.ferry.gds.device.DeviceBatchSource;
import dev.ferry.shuffle.DeviceReads;
import dev.ferry.shuffle.FerryShuffleRuntime;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.sql.types.StructType;

import java.io.Serializable;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The reduce side of a device repartition, one task per output partition: fetches the
 * partition's block from every map into this executor's GPU ({@link PieceFetcher}), unpacks them
 * into device batches (slices of the blocks, no copy) and runs the user's function on them as a
 * {@link DevicePartition}, maps in order and each map's batches in input order. If a map's
 * executor is gone ({@link ExecutorGone}) the function does not run: the task succeeds with the
 * lost map outputs ({@link ReduceOutcome.MapsLost}), so the driver reruns those maps and this
 * partition, rather than failing a task whose retries could only fail the same way.
 */
final class RepartitionReduceTask<R extends Serializable>
        implements Function2<Integer, Iterator<Integer>, Iterator<ReduceOutcome<R>>>
{
    private static final long serialVersionUID = 1L;

    private final StructType schema;
    private final int shuffleId;
    private final int round;
    private final ArrayList<Integer> partitions;
    private final ArrayList<MapPieces> maps;
    private final DevicePartitionFunction<R> function;

    /** Task {@code i} reduces output partition {@code partitions.get(i)} of {@code round}. */
    RepartitionReduceTask(StructType schema, int shuffleId, int round, List<Integer> partitions, List<MapPieces> maps, DevicePartitionFunction<R> function)
    {
        this.schema = requireNonNull(schema, "schema is null");
        this.shuffleId = shuffleId;
        this.round = round;
        this.partitions = new ArrayList<>(partitions);
        this.maps = new ArrayList<>(maps);
        this.function = requireNonNull(function, "function is null");
    }

    @Override
    public Iterator<ReduceOutcome<R>> call(Integer task, Iterator<Integer> ignored)
            throws Exception
    {
        int partition = partitions.get(task);
        FerryShuffleRuntime shuffle = ExecutorDeviceReads.runtime();
        DeviceReads reads = ExecutorDeviceReads.deviceReads(shuffle);
        PieceFetcher fetcher = new PieceFetcher(shuffle, reads);
        PieceFetcher.Fetched fetched = fetcher.fetch(shuffleId, partition, maps);
        if (!fetched.lost().isEmpty()) {
            return List.<ReduceOutcome<R>>of(new ReduceOutcome.MapsLost<>(partition, shuffle.executorId(), fetched.lost())).iterator();
        }
        List<PieceFetcher.Piece> pieces = fetched.pieces();
        Deque<DeviceBatch> batches = new ArrayDeque<>();
        long deviceBytes = 0;
        boolean unpacked = false;
        try {
            for (PieceFetcher.Piece piece : pieces) {
                deviceBytes += piece.block().length();
                batches.addAll(PiecePacking.unpack(piece.block(), piece.layout(), reads.landing().device(),
                        "block " + partition + " of map " + piece.map().mapIndex() + " (executor " + piece.map().executorId() + ")"));
            }
            unpacked = true;
        }
        finally {
            // The batches hold their own references to the blocks' memory.
            pieces.forEach(piece -> piece.block().close());
            if (!unpacked) {
                batches.forEach(DeviceBatch::close);
            }
        }
        QueuedBatches source = new QueuedBatches(batches, reads.store().runtime(), reads.landing().device());
        R value;
        DevicePartition device = new DevicePartition(partition, source, schema);
        try {
            value = function.call(device);
        }
        finally {
            device.close();
            source.closeRest();
        }
        return List.<ReduceOutcome<R>>of(new ReduceOutcome.Done<>(new RepartitionedResult<>(partition, round, value, shuffle.executorId(), reads.landing().device(), source.handedOut(), source.rows(), deviceBytes,
                fetcher.bytesByRoute(), fetcher.hostStagedByDecidedRoute(), fetcher.peerRoutes(), device.exportedAs(), device.exportHostCopyBytes()))).iterator();
    }

    /** The fetched batches, handed out one at a time; those the function did not take are freed by {@link #closeRest}. */
    private static final class QueuedBatches
            implements DeviceBatchSource
    {
        private final Deque<DeviceBatch> batches;
        private final DeviceRuntime runtime;
        private final int device;
        private long handedOut;
        private long rows;

        QueuedBatches(Deque<DeviceBatch> batches, DeviceRuntime runtime, int device)
        {
            this.batches = batches;
            this.runtime = runtime;
            this.device = device;
        }

        @Override
        public Optional<DeviceBatch> next()
        {
            DeviceBatch batch = batches.pollFirst();
            if (batch != null) {
                handedOut++;
                rows += batch.rows();
            }
            return Optional.ofNullable(batch);
        }

        @Override
        public DeviceRuntime runtime()
        {
            return runtime;
        }

        @Override
        public int device()
        {
            return device;
        }

        long handedOut()
        {
            return handedOut;
        }

        long rows()
        {
            return rows;
        }

        void closeRest()
        {
            for (DeviceBatch batch = batches.pollFirst(); batch != null; batch = batches.pollFirst()) {
                batch.close();
            }
        }
    }
}
