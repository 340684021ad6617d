package dev.ferry.shuffle.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/** A finished map task's blocks, one per reduce partition, ready to be written wherever the store keeps them. */
public interface EncodedMapOutput
{
    int partitions();

    /** Bytes of the block of {@code partition}; 0 for an empty partition, which is never written. */
    long blockLength(int partition);

    /** Writes the block at {@code target}'s position (its limit leaves room for {@link #blockLength}). */
    void writeBlock(int partition, ByteBuffer target);

    /**
     * Writes the block into {@code file} at {@code position}. This default stages it in one heap
     * buffer of the block's size; an output that can stream its block overrides it (the encoder
     * does, so a map output going to disk never needs a buffer as large as its largest block).
     */
    default void writeBlock(int partition, FileChannel file, long position)
            throws IOException
    {
        ByteBuffer block = ByteBuffer.allocate(Math.toIntExact(blockLength(partition)));
        writeBlock(partition, block);
        long at = position;
        while (block.hasRemaining()) {
            at += file.write(block, at);
        }
    }
}
