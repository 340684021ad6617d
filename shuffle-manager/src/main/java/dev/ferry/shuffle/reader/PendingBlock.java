package dev.ferry.shuffle.reader;

import dev.ferry.shuffle.transport.ShuffleBlockRef;
import org.apache.spark.storage.BlockManagerId;

import static java.util.Objects.requireNonNull;

/** A block a reduce task still has to read: where it is, its size per the MapStatus, and its map index (for fetch failures). */
record PendingBlock(BlockManagerId location, ShuffleBlockRef ref, long size, int mapIndex)
{
    PendingBlock
    {
        requireNonNull(location, "location is null");
        requireNonNull(ref, "ref is null");
    }
}
