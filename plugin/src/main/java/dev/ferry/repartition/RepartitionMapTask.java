package dev.ferry.repartition;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.gds.device.DeviceBatch;
import dev.ferry.gds.device.DeviceTarget;
import dev.ferry.gds.repartition.DeviceBatchRepartitioner;
import dev.ferry.gds.spark.GdsDeviceBatchReader;
import dev.ferry.gds.spark.GdsReaderFactory;
import dev.ferry.shuffle.DeviceReads;
import dev.ferry.shuffle.FerryShuffleRuntime;
import dev.ferry.shuffle.PeerEndpoints;
import dev.ferry.shuffle.store.MapOutputId;
import dev.ferry.shuffle.transport.PeerAddress;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.sql.connector.read.InputPartition;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The map side of a device repartition, one task per scan partition: reads the partition's device
 * batches (gds device reader), splits each on the GPU into the output partitions
 * ({@link DeviceBatchRepartitioner}: Spark's Murmur3 seed 42, pmod n, input order kept), packs each
 * output partition's pieces into one block of the device store's pool and commits them to the
 * store as this task's map output, under the repartition's shuffle id. No row byte leaves the GPU.
 * Task {@code i} computes map {@code mapIndexes[i]}: all maps in the first round, those of lost
 * executors in a rerun. The map id is the task attempt's id, so a rerun's blocks never collide
 * with an earlier attempt's (on the same executor the store lets the later attempt of a map index
 * supersede the earlier).
 */
final class RepartitionMapTask
        implements Function2<Integer, Iterator<InputPartition>, Iterator<MapPieces>>
{
    private static final long serialVersionUID = 1L;

    private final GdsReaderFactory factory;
    private final int shuffleId;
    private final int[] mapIndexes;
    private final int[] keyColumns;
    private final int partitions;

    RepartitionMapTask(GdsReaderFactory factory, int shuffleId, int[] mapIndexes, int[] keyColumns, int partitions)
    {
        this.factory = requireNonNull(factory, "factory is null");
        this.shuffleId = shuffleId;
        this.mapIndexes = mapIndexes.clone();
        this.keyColumns = keyColumns.clone();
        this.partitions = partitions;
    }

    @Override
    public Iterator<MapPieces> call(Integer taskIndex, Iterator<InputPartition> input)
            throws Exception
    {
        int mapIndex = mapIndexes[taskIndex];
        TaskContext task = TaskContext.get();
        FerryShuffleRuntime shuffle = ExecutorDeviceReads.runtime();
        DeviceReads reads = ExecutorDeviceReads.deviceReads(shuffle);
        long mapId = task.taskAttemptId();
        List<List<DeviceBatch>> pieces = new ArrayList<>(partitions);
        for (int p = 0; p < partitions; p++) {
            pieces.add(new ArrayList<>());
        }
        List<Optional<DeviceBuffer>> blocks = new ArrayList<>(partitions);
        List<PieceLayout> layouts = new ArrayList<>(partitions);
        try (GdsDeviceBatchReader reader = factory.createDeviceReader(input.next())) {
            if (reader.runtime() != reads.store().runtime() || reader.device() != reads.landing().device()) {
                throw new FerryException(ErrorCategory.USER_ERROR, "The gds reader's device batches are on device " + reader.device() + " of runtime "
                        + reader.runtime().backendName() + ", the device store of executor " + shuffle.executorId() + " on device " + reads.landing().device() + " of runtime "
                        + reads.store().runtime().backendName() + ": give the scan the executor's spark.ferry.device.* settings, so both share one runtime");
            }
            try (DeviceStream stream = reader.runtime().newStream(reader.device())) {
                DeviceBatchRepartitioner repartitioner = DeviceBatchRepartitioner.forTarget(new DeviceTarget(reader.runtime(), reader.device(), stream));
                for (Optional<DeviceBatch> next = reader.next(); next.isPresent(); next = reader.next()) {
                    try (DeviceBatch batch = next.get()) {
                        List<DeviceBatch> parts = repartitioner.repartition(batch, keyColumns, partitions);
                        for (int p = 0; p < partitions; p++) {
                            if (parts.get(p).rows() > 0) {
                                pieces.get(p).add(parts.get(p));
                            }
                            else {
                                parts.get(p).close();
                            }
                        }
                    }
                }
                for (int p = 0; p < partitions; p++) {
                    if (pieces.get(p).isEmpty()) {
                        blocks.add(Optional.empty());
                        layouts.add(null);
                        continue;
                    }
                    PiecePacking.Packed packed = PiecePacking.pack(pieces.get(p), reads.landing(), stream);
                    blocks.add(Optional.of(packed.block()));
                    layouts.add(packed.layout());
                    pieces.get(p).forEach(DeviceBatch::close);
                    pieces.get(p).clear();
                }
            }
        }
        finally {
            pieces.forEach(list -> list.forEach(DeviceBatch::close));
            if (blocks.size() < partitions) {
                // Failed before every block was packed: none was handed to the store.
                blocks.forEach(block -> block.ifPresent(DeviceBuffer::close));
            }
        }
        // The store owns the blocks from here, also if the commit fails.
        reads.store().commitOnDevice(new MapOutputId(shuffleId, mapId, mapIndex, task.stageId()), blocks);
        PeerAddress self = PeerEndpoints.tcpPeer(shuffle.location()).orElseThrow(() -> new IllegalStateException(
                "executor " + shuffle.executorId() + " announces no block server port in " + shuffle.location()));
        return List.of(new MapPieces(mapIndex, mapId, shuffle.executorId(), self.host(), self.port(), self.topologyInfo(), layouts)).iterator();
    }
}
