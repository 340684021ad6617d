package dev.ferry.shuffle.format;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;

/** The serialized batches of one block, kept on the heap until the map task commits. */
final class PayloadBuffer
        extends ByteArrayOutputStream
{
    private int batches;
    private long rows;
    private long uncompressedBytes;

    PayloadBuffer(int initialSize)
    {
        super(initialSize);
    }

    void addBatch(long batchRows, long batchUncompressedBytes)
    {
        batches++;
        rows += batchRows;
        uncompressedBytes += batchUncompressedBytes;
    }

    int batches()
    {
        return batches;
    }

    long rows()
    {
        return rows;
    }

    /** The Arrow buffers' bytes of every batch before compression. */
    long uncompressedBytes()
    {
        return uncompressedBytes;
    }

    /** The bytes written so far, without copying them. */
    ByteBuffer bytes()
    {
        return ByteBuffer.wrap(buf, 0, count);
    }
}
