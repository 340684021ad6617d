package dev.ferry.shuffle.format;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;

/** The serialized batches of one block, kept on the heap until the map task commits. */
final class PayloadBuffer
        extends ByteArrayOutputStream
{
    private int batches;
    private long rows;

    PayloadBuffer(int initialSize)
    {
        super(initialSize);
    }

    void addBatch(long batchRows)
    {
        batches++;
        rows += batchRows;
    }

    int batches()
    {
        return batches;
    }

    long rows()
    {
        return rows;
    }

    /** The bytes written so far, without copying them. */
    ByteBuffer bytes()
    {
        return ByteBuffer.wrap(buf, 0, count);
    }
}
