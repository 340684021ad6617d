package dev.ferry.shuffle.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.device.pool.BlockLease;
import dev.ferry.device.pool.DeviceMemoryPool;
import dev.ferry.device.pool.StoredBlock;
import dev.ferry.device.pool.TierMetrics;
import dev.ferry.device.pool.TieredShuffleStore;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

import static java.util.Objects.requireNonNull;

/**
 * {@code spark.ferry.shuffle.stage=device}: each block goes into the device runtime's
 * {@link TieredShuffleStore} (GPU memory, spilling to host and then disk under pressure; the
 * simulated GPU under the simulated backend). Reads copy the block back to host memory, since
 * the reduce side decodes on the CPU; the device routes {@link #borrow} a block's device buffer
 * instead, without a copy. Thread-safe.
 */
public final class DeviceTieredMapOutputStore
        implements MapOutputStore
{
    private final DeviceRuntime runtime;
    private final DeviceMemoryPool pool;
    private final TieredShuffleStore tiers;
    private final BufferAllocator readAllocator;
    private final Map<Long, Output> outputs = new HashMap<>();
    private final Map<String, Long> latestByIndex = new HashMap<>();
    private long bytes;

    /** Takes ownership of all four and closes them with this store. */
    public DeviceTieredMapOutputStore(DeviceRuntime runtime, DeviceMemoryPool pool, TieredShuffleStore tiers, BufferAllocator readAllocator)
    {
        this.runtime = requireNonNull(runtime, "runtime is null");
        this.pool = requireNonNull(pool, "pool is null");
        this.tiers = requireNonNull(tiers, "tiers is null");
        this.readAllocator = requireNonNull(readAllocator, "readAllocator is null");
    }

    @Override
    public String name()
    {
        return "device(" + runtime.backendName() + ")";
    }

    @Override
    public long commit(MapOutputId id, EncodedMapOutput output)
    {
        long[] lengths = new long[output.partitions()];
        List<StoredBlock> stored = new ArrayList<>();
        boolean success = false;
        try {
            for (int partition = 0; partition < output.partitions(); partition++) {
                long length = output.blockLength(partition);
                lengths[partition] = length;
                if (length == 0) {
                    continue;
                }
                ByteBuffer block = ByteBuffer.allocateDirect(Math.toIntExact(length));
                output.writeBlock(partition, block);
                StoredBlock key = new StoredBlock(id.shuffleId(), id.mapId(), partition, id.stageId(), id.mapId());
                tiers.put(key, block);
                stored.add(key);
            }
            success = true;
        }
        finally {
            if (!success) {
                tiers.releaseTask(id.mapId());
            }
        }
        recordCommitted(id, lengths);
        return 0;
    }

    private void recordCommitted(MapOutputId id, long[] lengths)
    {
        Long superseded;
        synchronized (this) {
            outputs.put(id.mapId(), new Output(id, lengths));
            bytes += sum(lengths);
            superseded = latestByIndex.put(id.shuffleId() + "/" + id.mapIndex(), id.mapId());
        }
        if (superseded != null && superseded != id.mapId()) {
            remove(id.shuffleId(), superseded);
        }
    }

    /**
     * Keeps a map output that is already in device memory: {@code blocks.get(r)} is reduce
     * partition r's block, an allocation of {@link #pool()} that the store takes over without a
     * copy (empty for an empty partition). Served like {@link #commit}'s blocks: {@link #borrow}
     * lends them to the device routes, {@link #open} copies them to host memory, and a later
     * attempt of the same map index supersedes this one. The store owns every buffer from here,
     * also when this throws.
     */
    public void commitOnDevice(MapOutputId id, List<Optional<DeviceBuffer>> blocks)
    {
        long[] lengths = new long[blocks.size()];
        boolean success = false;
        int next = 0;
        try {
            for (; next < blocks.size(); next++) {
                Optional<DeviceBuffer> block = blocks.get(next);
                if (block.isEmpty()) {
                    continue;
                }
                lengths[next] = block.get().length();
                tiers.putOnDevice(new StoredBlock(id.shuffleId(), id.mapId(), next, id.stageId(), id.mapId()), block.get());
            }
            success = true;
        }
        finally {
            if (!success) {
                // putOnDevice closed the block it failed on; the ones after it were never handed over.
                for (int rest = next + 1; rest < blocks.size(); rest++) {
                    blocks.get(rest).ifPresent(DeviceBuffer::close);
                }
                tiers.releaseTask(id.mapId());
            }
        }
        recordCommitted(id, lengths);
    }

    private static long sum(long[] lengths)
    {
        long total = 0;
        for (long length : lengths) {
            total += length;
        }
        return total;
    }

    @Override
    public Optional<BlockBytes> open(int shuffleId, long mapId, int reduceId)
            throws IOException
    {
        Output output;
        synchronized (this) {
            output = outputs.get(mapId);
        }
        if (output == null || output.id.shuffleId() != shuffleId || reduceId < 0 || reduceId >= output.lengths.length) {
            return Optional.empty();
        }
        long length = output.lengths[reduceId];
        ArrowBuf buffer = readAllocator.buffer(Math.max(length, 1));
        try {
            if (length > 0) {
                ByteBuffer bytes = tiers.read(new StoredBlock(shuffleId, mapId, reduceId, output.id.stageId(), mapId));
                buffer.setBytes(0, bytes);
            }
            return Optional.of(new BlockBytes(buffer, length));
        }
        catch (RuntimeException e) {
            buffer.close();
            throw new IOException("Cannot read block " + reduceId + " of map output " + mapId + " from the device store: " + e.getMessage(), e);
        }
    }

    /** The pool the blocks' device memory is counted in (also the fetch side's landing buffers). */
    public DeviceMemoryPool pool()
    {
        return pool;
    }

    /** The device runtime the blocks live in. */
    public DeviceRuntime runtime()
    {
        return runtime;
    }

    /**
     * Lends the block's device buffer without a copy (kept from spilling and freeing until the lease
     * closes); empty when this store has no such non-empty block or it was spilled off the GPU, in
     * which case {@link #open} reads it through host memory.
     */
    public Optional<BlockLease> borrow(int shuffleId, long mapId, int reduceId)
    {
        Output output;
        synchronized (this) {
            output = outputs.get(mapId);
        }
        if (output == null || output.id.shuffleId() != shuffleId || reduceId < 0 || reduceId >= output.lengths.length || output.lengths[reduceId] == 0) {
            return Optional.empty();
        }
        try {
            return tiers.tryBorrow(new StoredBlock(shuffleId, mapId, reduceId, output.id.stageId(), mapId));
        }
        catch (RuntimeException e) {
            // Released meanwhile (a superseded attempt, the shuffle's end): open() says so.
            return Optional.empty();
        }
    }

    @Override
    public void remove(int shuffleId, long mapId)
    {
        Output output;
        synchronized (this) {
            output = outputs.remove(mapId);
            if (output != null) {
                bytes -= sum(output.lengths);
            }
        }
        if (output != null) {
            tiers.releaseTask(mapId);
        }
    }

    @Override
    public int removeShuffle(int shuffleId)
    {
        int removed;
        synchronized (this) {
            List<Long> ids = new ArrayList<>();
            outputs.forEach((mapId, output) -> {
                if (output.id.shuffleId() == shuffleId) {
                    ids.add(mapId);
                }
            });
            ids.forEach(mapId -> bytes -= sum(outputs.remove(mapId).lengths));
            latestByIndex.keySet().removeIf(key -> key.startsWith(shuffleId + "/"));
            removed = ids.size();
        }
        tiers.releaseShuffle(shuffleId);
        return removed;
    }

    @Override
    public synchronized long memoryBytes()
    {
        return tiers.metrics().deviceBytes() + tiers.metrics().hostBytes();
    }

    @Override
    public long diskBytes()
    {
        return tiers.metrics().diskBytes();
    }

    /** Blocks and bytes per tier, and how many blocks spilled from the device to host and from host to disk. */
    public TierMetrics tierMetrics()
    {
        return tiers.metrics();
    }

    @Override
    public void close()
    {
        try {
            tiers.close();
        }
        finally {
            try {
                pool.close();
            }
            finally {
                try {
                    runtime.close();
                }
                finally {
                    readAllocator.close();
                }
            }
        }
    }

    private record Output(MapOutputId id, long[] lengths)
    {
    }
}
