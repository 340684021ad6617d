package dev.ferry.shuffle.format;

import java.io.IOException;
import java.nio.channels.Channels;

import dev.ferry.shuffle.format.append.RowAppender;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;

/**
 * The open Arrow batch of one reduce partition on the map side. Rows go in through a
 * {@link RowAppender} (flat columns written by address, the rest with Spark's own Arrow field
 * writers: the mapping {@code ArrowColumnVector} reads back); a finished batch is serialized, with
 * per-buffer compression, onto the partition's payload.
 */
final class PartitionBatchBuilder
        implements AutoCloseable
{
    private final VectorSchemaRoot root;
    private final RowAppender writer;
    private int rows;

    /**
     * Vectors are sized for {@code capacityRows} (the encoder's batch row limit) up front: growing
     * them from a few rows by doubling cost more than the rows' own encoding (each step allocates,
     * copies and zeroes every buffer). The limit keeps all partitions' vectors within half the
     * task's Arrow budget, and a builder exists only for a partition that got a row.
     */
    PartitionBatchBuilder(Schema schema, BufferAllocator allocator, int capacityRows)
    {
        this.root = VectorSchemaRoot.create(schema, allocator);
        boolean success = false;
        try {
            for (FieldVector vector : root.getFieldVectors()) {
                if (vector instanceof BaseVariableWidthVector) {
                    ((BaseVariableWidthVector) vector).setInitialCapacity(capacityRows, BatchRowLimit.VARIABLE_BYTES);
                }
                else {
                    vector.setInitialCapacity(capacityRows);
                }
            }
            this.writer = new RowAppender(root);
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
        writer.append(row);
        rows++;
    }

    /** Appends {@code count} rows of one run column by column: each vector stays in cache while its values go in. */
    void appendAll(SpecializedGetters[] rows, int count)
    {
        writer.appendAll(rows, count);
        this.rows += count;
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

    /** Serializes the open batch onto {@code payload} (which counts its rows and uncompressed size) and starts a new one. */
    void flushTo(PayloadBuffer payload, CompressionCodec codec)
            throws IOException
    {
        if (rows == 0) {
            return;
        }
        writer.finish();
        root.setRowCount(rows);
        long uncompressed = 0;
        for (FieldVector vector : root.getFieldVectors()) {
            uncompressed += vector.getBufferSize();
        }
        try (ArrowRecordBatch batch = new VectorUnloader(root, true, codec, true).getRecordBatch()) {
            MessageSerializer.serialize(new WriteChannel(Channels.newChannel(payload)), batch);
        }
        payload.addBatch(rows, uncompressed);
        writer.reset();
        rows = 0;
    }

    @Override
    public void close()
    {
        root.close();
    }
}
