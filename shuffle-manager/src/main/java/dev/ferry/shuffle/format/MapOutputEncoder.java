package dev.ferry.shuffle.format;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.zip.Checksum;

import dev.ferry.shuffle.store.EncodedMapOutput;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * One map task's output being built: rows are appended to the open Arrow batch of their reduce
 * partition; a batch that reaches the target size is serialized onto that partition's payload,
 * and when the task's open batches together hold too much memory, all are flushed and released.
 *
 * <p>UnsafeRows are first copied into a stage ({@link StagedRows}, the scatter buffer of
 * {@link EncodingSettings#scatterBufferBytes}): when it is full, its rows are sorted by partition and
 * each partition's run is appended column by column, so one partition's vectors are in cache while
 * its rows go in (appending each row as it came touches another partition's vectors per row:
 * MapEncoderBenchmark measured 788 ns a row over 200 partitions against 354 ns into one, issue 19). A partition's rows keep their order and its batches are flushed at the same
 * rows as without the stage, so the blocks are the same bytes; only an early flush or a spill
 * forced by a short grant while the stage drains cuts batches at other rows (the same rows in the
 * same order). Rows that are not UnsafeRows, larger than the stage, or met when no stage memory was
 * granted are appended straight after the stage is drained (counted by {@link DirectReason}).
 *
 * <p>The payloads (serialized batches, on the heap until commit) are accounted with
 * {@link MemoryGrants}: each growth is asked for after the batch that caused it, and when less is
 * granted, or when Spark asks the task's consumers for memory ({@link #spill}), the open batches
 * are flushed and every payload's bytes go to one spill file of the task, read back at commit.
 * Not thread-safe (one per task).
 */
public final class MapOutputEncoder
        implements AutoCloseable, EncodedMapOutput
{
    // Checking a batch's size walks its vectors, so it is done every so many rows, not per row.
    private static final int SIZE_CHECK_INTERVAL = 256;
    private static final int MEMORY_CHECK_INTERVAL = 1024;
    private static final Logger LOG = LoggerFactory.getLogger(MapOutputEncoder.class);
    private static final AtomicBoolean[] DIRECT_LOGGED = {new AtomicBoolean(), new AtomicBoolean(), new AtomicBoolean()};

    private final Schema schema;
    private final BufferAllocator allocator;
    private final EncodingSettings settings;
    private final CompressionCodec codec;
    private final PartitionBatchBuilder[] builders;
    private final PayloadBuffer[] payloads;
    private final int batchRowLimit;
    private final MemoryGrants memory;
    private final Callable<Path> spillFiles;
    private long rowsSinceMemoryCheck;
    private long serializeNanos;
    private long records;
    private long earlyFlushes;
    // Heap granted for the payloads and not yet given back, and the most it ever was.
    private long heldBytes;
    private long peakHeldBytes;
    private Path spillPath;
    private FileChannel spillChannel;
    private long spilledBytes;
    private long freedBySpills;
    private int spills;
    private boolean spilling;
    private boolean closed;
    // The stage, its accounted heap (part of heldBytes), and the rows it is appended from.
    private final long stageBytes;
    private StagedRows stage;
    private long stageHeldBytes;
    private boolean draining;
    private int stageRefusedAtSpills = -1;
    private final UnsafeRow[] runRows;
    private final int fields;
    private final long[] directRows = new long[DirectReason.values().length];

    /** Payload memory unlimited; a spill (only when asked) goes to a temporary file. */
    public MapOutputEncoder(StructType sparkSchema, int partitions, BufferAllocator allocator, EncodingSettings settings)
    {
        this(sparkSchema, partitions, allocator, settings, MemoryGrants.UNLIMITED, () -> Files.createTempFile("ferry-map-spill", ".data"));
    }

    /** {@code spillFiles} makes the task's spill file, once, on its first spill; it is deleted at {@link #close}. */
    public MapOutputEncoder(StructType sparkSchema, int partitions, BufferAllocator allocator, EncodingSettings settings, MemoryGrants memory, Callable<Path> spillFiles)
    {
        this.memory = requireNonNull(memory, "memory is null");
        this.spillFiles = requireNonNull(spillFiles, "spillFiles is null");
        this.schema = ArrowSchemas.toArrow(requireNonNull(sparkSchema, "sparkSchema is null"));
        this.allocator = requireNonNull(allocator, "allocator is null");
        this.settings = requireNonNull(settings, "settings is null");
        this.codec = BufferCodecs.forWriting(settings.compression(), settings.minCompressBytes(), settings.zstdLevel());
        this.builders = new PartitionBatchBuilder[partitions];
        this.payloads = new PayloadBuffer[partitions];
        this.batchRowLimit = BatchRowLimit.of(schema, partitions, settings.maxBufferedBytes());
        // Rows without columns, or all for one partition, have nothing to scatter: the copy and the
        // sort could only cost (MapEncoderBenchmark into one partition: 279 against 226 ns a row).
        this.stageBytes = sparkSchema.isEmpty() || partitions == 1 ? 0 : settings.scatterBufferBytes();
        this.fields = sparkSchema.size();
        this.runRows = new UnsafeRow[stageBytes > 0 ? Math.min(SIZE_CHECK_INTERVAL, batchRowLimit) : 0];
        for (int i = 0; i < runRows.length; i++) {
            runRows[i] = new UnsafeRow(fields);
        }
    }

    /** Why a row was appended straight to its partition's batch instead of through the stage (with a stage configured). */
    public enum DirectReason
    {
        /** A view into a columnar batch or another InternalRow: there are no row bytes to copy. */
        NOT_UNSAFE_ROW,
        /** The row alone is larger than the stage. */
        LARGER_THAN_STAGE,
        /** Spark granted too little heap for a stage (asked again after the next spill). */
        NO_STAGE_MEMORY
    }

    public void append(int partition, InternalRow row)
            throws IOException
    {
        if (partition < 0 || partition >= builders.length) {
            throw new IllegalArgumentException("Reduce partition " + partition + " out of range: the shuffle has " + builders.length);
        }
        records++;
        if (stageBytes > 0) {
            DirectReason reason = stage(partition, row);
            if (reason == null) {
                return;
            }
            if (directRows[reason.ordinal()]++ == 0 && !DIRECT_LOGGED[reason.ordinal()].getAndSet(true)) {
                // Once per executor and reason: each task counts its own (directRows).
                LOG.info("Ferry map output appends rows straight to their partitions' batches, not through the stage: {} (first seen for reduce partition {})", reason, partition);
            }
            // Rows staged before this one go first: a partition's rows keep their order.
            drainStage();
        }
        appendDirect(partition, row);
    }

    /** Copies the row into the stage (draining it first when full); returns why it could not be, or null when it was. */
    private DirectReason stage(int partition, InternalRow row)
            throws IOException
    {
        if (!(row instanceof UnsafeRow)) {
            return DirectReason.NOT_UNSAFE_ROW;
        }
        UnsafeRow unsafe = (UnsafeRow) row;
        if (stage == null && !openStage()) {
            return DirectReason.NO_STAGE_MEMORY;
        }
        if (!stage.fits(unsafe.getSizeInBytes())) {
            return DirectReason.LARGER_THAN_STAGE;
        }
        if (!stage.add(partition, unsafe)) {
            drainStage();
            if (stage == null && !openStage()) {
                return DirectReason.NO_STAGE_MEMORY;
            }
            if (!stage.add(partition, unsafe)) {
                throw new IllegalStateException("An empty map output stage of " + stage.footprintBytes() + " bytes refused a row of " + unsafe.getSizeInBytes() + " bytes");
            }
        }
        return null;
    }

    /** Asks for the stage's heap (once per spill after a refusal) and makes the stage; false when too little was granted. */
    private boolean openStage()
            throws IOException
    {
        if (stageRefusedAtSpills == spills) {
            return false;
        }
        long granted = memory.acquire(stageBytes);
        StagedRows made = StagedRows.within(granted, fields, builders.length);
        if (made == null || granted < stageBytes / 4) {
            memory.release(granted);
            stageRefusedAtSpills = spills;
            LOG.debug("Ferry map output stage: {} of {} bytes granted, appending rows straight to their batches until the next spill", granted, stageBytes);
            return false;
        }
        // Whatever Spark spilled to grant this, the stage itself is new and empty: its heap is kept.
        memory.release(granted - made.footprintBytes());
        stage = made;
        stageHeldBytes = made.footprintBytes();
        heldBytes += stageHeldBytes;
        peakHeldBytes = Math.max(peakHeldBytes, heldBytes);
        return true;
    }

    /** Gives the stage's heap back (it must be empty); returns the bytes given back. */
    private long releaseStage()
    {
        if (stage == null) {
            return 0;
        }
        if (stage.count() > 0) {
            throw new IllegalStateException("The map output stage still holds " + stage.count() + " rows: they must be appended before its heap is given back");
        }
        long released = stageHeldBytes;
        memory.release(released);
        heldBytes -= released;
        stageHeldBytes = 0;
        stage = null;
        return released;
    }

    /** Appends every staged row to its partition's batch, partition by partition, then empties the stage. */
    private void drainStage()
            throws IOException
    {
        if (stage == null || stage.count() == 0 || draining) {
            return;
        }
        draining = true;
        try {
            stage.sortByPartition();
            for (int partition = 0; partition < builders.length; partition++) {
                int position = stage.runStart(partition);
                int end = stage.runEnd(partition);
                while (position < end) {
                    PartitionBatchBuilder builder = builder(partition);
                    // A run stops where a row-at-a-time append would check the batch: at the batch
                    // row limit or a multiple of the size-check interval, so flushes fall on the same rows.
                    int rows = builder.rows();
                    int count = Math.min(end - position, Math.min(batchRowLimit - rows, SIZE_CHECK_INTERVAL - rows % SIZE_CHECK_INTERVAL));
                    count = Math.min(count, runRows.length);
                    for (int i = 0; i < count; i++) {
                        stage.pointTo(runRows[i], position + i);
                    }
                    builder.appendAll(runRows, count);
                    position += count;
                    afterAppend(partition, builder, count);
                }
            }
            stage.clear();
        }
        finally {
            draining = false;
        }
    }

    private void appendDirect(int partition, InternalRow row)
            throws IOException
    {
        PartitionBatchBuilder builder = builder(partition);
        builder.append(row);
        afterAppend(partition, builder, 1);
    }

    private PartitionBatchBuilder builder(int partition)
    {
        PartitionBatchBuilder builder = builders[partition];
        if (builder == null) {
            builder = new PartitionBatchBuilder(schema, allocator, batchRowLimit);
            builders[partition] = builder;
        }
        return builder;
    }

    /** After {@code count} rows went into {@code partition}'s batch: flushes it when full, and all batches when they hold too much. */
    private void afterAppend(int partition, PartitionBatchBuilder builder, int count)
            throws IOException
    {
        int rows = builder.rows();
        if (rows >= batchRowLimit || (rows % SIZE_CHECK_INTERVAL == 0 && builder.sizeInBytes() >= settings.batchTargetBytes())) {
            flush(partition);
        }
        rowsSinceMemoryCheck += count;
        if (rowsSinceMemoryCheck >= MEMORY_CHECK_INTERVAL) {
            rowsSinceMemoryCheck = 0;
            if (allocator.getAllocatedMemory() > settings.maxBufferedBytes()) {
                earlyFlushes++;
                flushAndRelease();
            }
        }
    }

    private void flush(int partition)
            throws IOException
    {
        PayloadBuffer payload = payloads[partition];
        if (payload == null) {
            payload = new PayloadBuffer(4096);
            payloads[partition] = payload;
        }
        // Timed per batch, not per row: a clock read costs about 40 ns on a VM, and two per row
        // were 0.8 s of CPU per 10 million rows.
        long heapBefore = payload.heapBytes();
        long start = System.nanoTime();
        builders[partition].flushTo(payload, codec);
        serializeNanos += System.nanoTime() - start;
        if (!spilling) {
            reserve(payload.heapBytes() - heapBefore);
        }
    }

    /** Accounts {@code bytes} more of payload heap; spills every payload when fewer are granted. */
    private void reserve(long bytes)
            throws IOException
    {
        if (bytes <= 0) {
            return;
        }
        int spillsBefore = spills;
        long granted = memory.acquire(bytes);
        if (spills != spillsBefore) {
            // Spark made this encoder spill to find the memory: the payloads it was for are on disk now.
            memory.release(granted);
            return;
        }
        heldBytes += granted;
        peakHeldBytes = Math.max(peakHeldBytes, heldBytes);
        if (granted < bytes) {
            spill();
        }
    }

    /**
     * Gives back all the memory this encoder can: appends the staged rows, serializes and releases
     * the open batches, moves every payload's bytes to the task's spill file and gives the stage's
     * heap back (asked for again by the next row). Returns the heap given back (the Arrow memory of
     * the open batches is freed too, outside Spark's accounting).
     */
    public long spill()
            throws IOException
    {
        if (closed || spilling) {
            return 0;
        }
        spilling = true;
        try {
            // Staged rows go to their batches first (unless the stage is draining now: a flush of
            // the drain asked for the memory that made Spark spill; the rest of the stage follows).
            drainStage();
            flushAndRelease();
            if (spillChannel == null) {
                try {
                    spillPath = spillFiles.call();
                }
                catch (IOException e) {
                    throw e;
                }
                catch (Exception e) {
                    throw new IOException("Cannot create a spill file for the map output: " + e.getMessage(), e);
                }
                spillChannel = FileChannel.open(spillPath, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
            }
            for (PayloadBuffer payload : payloads) {
                if (payload != null) {
                    spilledBytes += payload.spillTo(spillChannel, spilledBytes);
                }
            }
            // The payloads' heap, and the stage's unless it is draining now (then it keeps its own).
            long stageFreed = draining ? 0 : releaseStage();
            long payloadsFreed = heldBytes - stageHeldBytes;
            memory.release(payloadsFreed);
            heldBytes = stageHeldBytes;
            long freed = payloadsFreed + stageFreed;
            freedBySpills += freed;
            spills++;
            return freed;
        }
        finally {
            spilling = false;
        }
    }

    private void flushAndRelease()
            throws IOException
    {
        for (int partition = 0; partition < builders.length; partition++) {
            if (builders[partition] != null) {
                flush(partition);
                // The flush's memory request may have made the encoder spill, which released the builder already.
                if (builders[partition] != null) {
                    builders[partition].close();
                    builders[partition] = null;
                }
            }
        }
    }

    /** Serializes every open batch and releases all Arrow memory; then the blocks can be read. */
    public void finish()
            throws IOException
    {
        drainStage();
        releaseStage();
        flushAndRelease();
    }

    @Override
    public int partitions()
    {
        return payloads.length;
    }

    /** Bytes of the block for {@code partition} including its header; 0 when the partition got no rows. */
    @Override
    public long blockLength(int partition)
    {
        PayloadBuffer payload = payloads[partition];
        return payload == null || payload.rows() == 0 ? 0 : BlockHeader.LENGTH + payload.length();
    }

    public long[] blockLengths()
    {
        long[] lengths = new long[payloads.length];
        for (int partition = 0; partition < payloads.length; partition++) {
            lengths[partition] = blockLength(partition);
        }
        return lengths;
    }

    /**
     * The size of each partition's block as the map status reports it to the driver, where AQE
     * coalesces partitions, splits skewed ones and sizes reads by it: the block's Arrow bytes
     * before compression (never less than the stored block, and 0 only for an empty partition).
     * Spark's own map status carries LZ4-compressed rows; Ferry's zstd blocks are about 0.6x of
     * those, so reporting them let AQE pack about 1.7x the rows into each coalesced partition,
     * and aggregates and joins downstream ran short of memory where the same query with Spark's
     * shuffle did not. The uncompressed Arrow size is close to Spark's compressed size for the
     * same rows (1.24x for the shuffle benchmark's fact rows), so AQE plans about as it does with
     * Spark's shuffle.
     */
    public long[] plannedSizes()
    {
        long[] sizes = new long[payloads.length];
        for (int partition = 0; partition < payloads.length; partition++) {
            long stored = blockLength(partition);
            sizes[partition] = stored == 0 ? 0 : Math.max(stored, payloads[partition].uncompressedBytes());
        }
        return sizes;
    }

    /**
     * Writes the block (header then payload) at {@code target}'s position; the caller sized it with
     * {@link #blockLength}. The payload goes first (spilled parts read back from the spill file),
     * then its checksum is taken where it landed and the header written in front of it.
     */
    @Override
    public void writeBlock(int partition, ByteBuffer target)
    {
        PayloadBuffer payload = payloads[partition];
        int length = Math.toIntExact(payload.length());
        ByteBuffer body = target.duplicate();
        body.position(target.position() + BlockHeader.LENGTH);
        ByteBuffer written = body.slice();
        written.limit(length);
        try {
            payload.copyTo(body, spillChannel);
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot read back the spilled part of map output block " + partition + " from " + spillPath + ": " + e.getMessage(), e);
        }
        long checksum = BlockChecksums.compute(settings.checksum(), written, payload.rows(), payload.batches());
        new BlockHeader(settings.checksum(), checksum, payload.rows(), payload.batches(), length).writeTo(target);
    }

    /** Streams the block into {@code file}: the payload first (through one 64 KiB chunk), then the header with its checksum in front of it. */
    @Override
    public void writeBlock(int partition, FileChannel file, long position)
            throws IOException
    {
        PayloadBuffer payload = payloads[partition];
        Checksum checksum = settings.checksum().newChecksum();
        payload.transferTo(file, position + BlockHeader.LENGTH, spillChannel, checksum, ByteBuffer.allocate(64 * 1024));
        ByteBuffer header = ByteBuffer.allocate(BlockHeader.LENGTH);
        new BlockHeader(settings.checksum(), BlockChecksums.finish(checksum, payload.rows(), payload.batches()), payload.rows(), payload.batches(),
                Math.toIntExact(payload.length())).writeTo(header);
        long at = position;
        while (header.hasRemaining()) {
            at += file.write(header, at);
        }
    }

    /** Uncompressed Arrow bytes of every batch serialized so far (the data size AQE plans with). */
    public long uncompressedBytes()
    {
        long bytes = 0;
        for (PayloadBuffer payload : payloads) {
            bytes += payload == null ? 0 : payload.uncompressedBytes();
        }
        return bytes;
    }

    /** Time spent serializing and compressing batches so far (the shuffle write time Spark reports). */
    public long serializeNanos()
    {
        return serializeNanos;
    }

    public long records()
    {
        return records;
    }

    public long earlyFlushes()
    {
        return earlyFlushes;
    }

    /** How many times the encoder spilled, the payload heap those spills gave back, and the bytes they wrote to disk. */
    public int spills()
    {
        return spills;
    }

    public long memoryBytesSpilled()
    {
        return freedBySpills;
    }

    public long diskBytesSpilled()
    {
        return spilledBytes;
    }

    /** Rows appended straight to their batches for {@code reason} (with a stage configured). */
    public long directRows(DirectReason reason)
    {
        return directRows[reason.ordinal()];
    }

    /** Heap accounted now (granted and not given back): the payloads and the stage. */
    public long heldBytes()
    {
        return heldBytes;
    }

    /** The most heap (payloads and stage) this encoder held at once. */
    public long peakHeldBytes()
    {
        return peakHeldBytes;
    }

    /** Releases the Arrow memory, gives back the accounted heap and deletes the spill file. */
    @Override
    public void close()
    {
        if (closed) {
            return;
        }
        closed = true;
        List<RuntimeException> failures = new ArrayList<>();
        memory.release(heldBytes);
        heldBytes = 0;
        stageHeldBytes = 0;
        stage = null;
        if (spillChannel != null) {
            try {
                spillChannel.close();
                Files.deleteIfExists(spillPath);
            }
            catch (IOException e) {
                failures.add(new UncheckedIOException("Cannot delete map output spill file " + spillPath, e));
            }
        }
        for (int partition = 0; partition < builders.length; partition++) {
            if (builders[partition] != null) {
                try {
                    builders[partition].close();
                }
                catch (RuntimeException e) {
                    failures.add(e);
                }
                builders[partition] = null;
            }
            payloads[partition] = null;
        }
        if (!failures.isEmpty()) {
            RuntimeException failure = failures.get(0);
            failures.subList(1, failures.size()).forEach(failure::addSuppressed);
            throw failure;
        }
    }
}
