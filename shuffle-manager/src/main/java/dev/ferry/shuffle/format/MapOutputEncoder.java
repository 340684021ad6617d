package dev.ferry.shuffle.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import dev.ferry.shuffle.store.EncodedMapOutput;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.StructType;

import static java.util.Objects.requireNonNull;

/**
 * One map task's output being built. UnsafeRows (what Spark's row operators produce) are copied
 * into a {@link RowStage}; when the stage reaches the task's memory budget, and at the end, its
 * rows are grouped by reduce partition and each partition's rows become Arrow batches one
 * partition at a time, serialized onto that partition's payload. Other rows (views into columnar
 * batches, or with staging switched off) are appended to the open Arrow batch of their partition
 * at once; a batch that reaches the target size is serialized, and when the task's open batches
 * together hold too much memory, all are flushed and released. Not thread-safe (one per task).
 */
public final class MapOutputEncoder
        implements AutoCloseable, EncodedMapOutput
{
    // Checking a batch's size walks its vectors, so it is done every so many rows, not per row.
    private static final int SIZE_CHECK_INTERVAL = 256;
    private static final int MEMORY_CHECK_INTERVAL = 1024;

    private final Schema schema;
    private final BufferAllocator allocator;
    private final EncodingSettings settings;
    private final CompressionCodec codec;
    private final PartitionBatchBuilder[] builders;
    private final PayloadBuffer[] payloads;
    private final int batchRowLimit;
    private final RowStage stage;
    private final long stageBudget;
    private final int stagedBatchCapacity;
    private PartitionBatchBuilder stagedBuilder;
    private UnsafeRow stagedView;
    private long rowsSinceMemoryCheck;
    private long uncompressedBytes;
    private long records;
    private long earlyFlushes;
    private long stageFlushes;

    public MapOutputEncoder(StructType sparkSchema, int partitions, BufferAllocator allocator, EncodingSettings settings)
    {
        this.schema = ArrowSchemas.toArrow(requireNonNull(sparkSchema, "sparkSchema is null"));
        this.allocator = requireNonNull(allocator, "allocator is null");
        this.settings = requireNonNull(settings, "settings is null");
        this.codec = BufferCodecs.forWriting(settings.compression(), settings.minCompressBytes(), settings.zstdLevel());
        this.builders = new PartitionBatchBuilder[partitions];
        this.payloads = new PayloadBuffer[partitions];
        this.batchRowLimit = BatchRowLimit.of(schema, partitions, settings.maxBufferedBytes());
        // One batch being built at a time, of the target size: the stage gets the rest of the budget.
        this.stageBudget = Math.max(settings.maxBufferedBytes() / 2, settings.maxBufferedBytes() - 2 * settings.batchTargetBytes());
        this.stage = settings.rowStaging() ? new RowStage(allocator, stageBudget) : null;
        // The staged batch ends at the target size (checked every SIZE_CHECK_INTERVAL rows): its one
        // set of vectors starts at the estimated rows of that size and, if the estimate was low, grows once.
        this.stagedBatchCapacity = BatchRowLimit.of(schema, 1, 2 * settings.batchTargetBytes());
    }

    public void append(int partition, InternalRow row)
            throws IOException
    {
        if (stage != null && row instanceof UnsafeRow) {
            stage.add(partition, (UnsafeRow) row);
            records++;
            if (stage.memoryBytes() >= stageBudget) {
                stageFlushes++;
                encodeStage();
            }
            return;
        }
        PartitionBatchBuilder builder = builders[partition];
        if (builder == null) {
            builder = new PartitionBatchBuilder(schema, allocator, batchRowLimit);
            builders[partition] = builder;
        }
        builder.append(row);
        records++;
        int rows = builder.rows();
        if (rows >= batchRowLimit || (rows % SIZE_CHECK_INTERVAL == 0 && builder.sizeInBytes() >= settings.batchTargetBytes())) {
            flush(partition);
        }
        if (++rowsSinceMemoryCheck >= MEMORY_CHECK_INTERVAL) {
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
        flush(partition, builders[partition]);
    }

    private void flush(int partition, PartitionBatchBuilder builder)
            throws IOException
    {
        PayloadBuffer payload = payloads[partition];
        if (payload == null) {
            payload = new PayloadBuffer(4096);
            payloads[partition] = payload;
        }
        uncompressedBytes += builder.flushTo(payload, codec);
    }

    /** Turns the staged rows into batches, one partition after another, and empties the stage. */
    private void encodeStage()
            throws IOException
    {
        if (stage.rows() == 0) {
            return;
        }
        if (stagedBuilder == null) {
            stagedBuilder = new PartitionBatchBuilder(schema, allocator, stagedBatchCapacity);
            stagedView = new UnsafeRow(schema.getFields().size());
        }
        int[] starts = stage.groupByPartition(payloads.length);
        for (int partition = 0; partition < payloads.length; partition++) {
            for (int index = starts[partition]; index < starts[partition + 1]; index++) {
                stage.pointTo(stagedView, index);
                stagedBuilder.append(stagedView);
                int rows = stagedBuilder.rows();
                if (rows >= BatchRowLimit.MAX_ROWS || (rows % SIZE_CHECK_INTERVAL == 0 && stagedBuilder.sizeInBytes() >= settings.batchTargetBytes())) {
                    flush(partition, stagedBuilder);
                }
            }
            if (stagedBuilder.rows() > 0) {
                flush(partition, stagedBuilder);
            }
        }
        stage.clear();
    }

    private void flushAndRelease()
            throws IOException
    {
        for (int partition = 0; partition < builders.length; partition++) {
            if (builders[partition] != null) {
                flush(partition);
                builders[partition].close();
                builders[partition] = null;
            }
        }
    }

    /** Serializes every open batch and releases all Arrow memory; then the blocks can be read. */
    public void finish()
            throws IOException
    {
        if (stage != null) {
            encodeStage();
            releaseStage();
        }
        flushAndRelease();
    }

    private void releaseStage()
    {
        try (RowStage ignored = stage; PartitionBatchBuilder builder = stagedBuilder) {
            stagedBuilder = null;
        }
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
        return payload == null || payload.rows() == 0 ? 0 : BlockHeader.LENGTH + payload.size();
    }

    public long[] blockLengths()
    {
        long[] lengths = new long[payloads.length];
        for (int partition = 0; partition < payloads.length; partition++) {
            lengths[partition] = blockLength(partition);
        }
        return lengths;
    }

    /** Writes the block (header then payload) at {@code target}'s position; the caller sized it with {@link #blockLength}. */
    @Override
    public void writeBlock(int partition, ByteBuffer target)
    {
        PayloadBuffer payload = payloads[partition];
        ByteBuffer bytes = payload.bytes();
        long checksum = BlockChecksums.compute(settings.checksum(), bytes, payload.rows(), payload.batches());
        new BlockHeader(settings.checksum(), checksum, payload.rows(), payload.batches(), payload.size()).writeTo(target);
        ByteBuffer body = target.duplicate();
        body.position(target.position() + BlockHeader.LENGTH);
        body.put(bytes);
    }

    /** Uncompressed Arrow bytes of every batch serialized so far (the data size AQE plans with). */
    public long uncompressedBytes()
    {
        return uncompressedBytes;
    }

    public long records()
    {
        return records;
    }

    public long earlyFlushes()
    {
        return earlyFlushes;
    }

    /** How often the row stage filled up before the task's last row. */
    public long stageFlushes()
    {
        return stageFlushes;
    }

    @Override
    public void close()
    {
        List<RuntimeException> failures = new ArrayList<>();
        if (stage != null) {
            try {
                releaseStage();
            }
            catch (RuntimeException e) {
                failures.add(e);
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
