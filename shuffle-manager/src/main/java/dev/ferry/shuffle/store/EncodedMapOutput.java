package dev.ferry.shuffle.store;

import java.nio.ByteBuffer;

/** A finished map task's blocks, one per reduce partition, ready to be written wherever the store keeps them. */
public interface EncodedMapOutput
{
    int partitions();

    /** Bytes of the block of {@code partition}; 0 for an empty partition, which is never written. */
    long blockLength(int partition);

    /** Writes the block at {@code target}'s position (its limit leaves room for {@link #blockLength}). */
    void writeBlock(int partition, ByteBuffer target);
}
