package dev.ferry.shuffle.format;

import java.io.IOException;
import java.nio.channels.Channels;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.arrow.ArrowWriter;

/**
 * The open Arrow batch of one reduce partition on the map side. Rows go in through Spark's own
 * {@link ArrowWriter} (the same type mapping {@code ArrowColumnVector} reads back); a finished
 * batch is serialized, with per-buffer compression, onto the partition's payload.
 */
final class PartitionBatchBuilder
        implements AutoCloseable
{
    // Vectors start small and grow: most of a map task's partitions may only ever see a few rows.
    private static final int INITIAL_CAPACITY = 64;

    private final VectorSchemaRoot root;
    private final ArrowWriter writer;
    private int rows;

    PartitionBatchBuilder(Schema schema, BufferAllocator allocator)
    {
        this.root = VectorSchemaRoot.create(schema, allocator);
        boolean success = false;
        try {
            for (FieldVector vector : root.getFieldVectors()) {
                vector.setInitialCapacity(INITIAL_CAPACITY);
            }
            this.writer = ArrowWriter.create(root);
            success = true;
        }
        finally {
            if (!success) {
                root.close();
            }
        }
    }

    void append(InternalRow row)
    {
        writer.write(row);
        rows++;
    }

    int rows()
    {
        return rows;
    }

    /** Uncompressed bytes of the open batch. */
    long sizeInBytes()
    {
        return writer.sizeInBytes();
    }

    /** Serializes the open batch onto {@code payload} and starts a new one; returns its uncompressed size. */
    long flushTo(PayloadBuffer payload, CompressionCodec codec)
            throws IOException
    {
        if (rows == 0) {
            return 0;
        }
        writer.finish();
        long uncompressed = 0;
        for (FieldVector vector : root.getFieldVectors()) {
            uncompressed += vector.getBufferSize();
        }
        try (ArrowRecordBatch batch = new VectorUnloader(root, true, codec, true).getRecordBatch()) {
            MessageSerializer.serialize(new WriteChannel(Channels.newChannel(payload)), batch);
        }
        payload.addBatch(rows);
        writer.reset();
        rows = 0;
        return uncompressed;
    }

    @Override
    public void close()
    {
        root.close();
    }
}
