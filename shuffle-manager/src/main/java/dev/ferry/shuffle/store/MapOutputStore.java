package dev.ferry.shuffle.store;

import java.io.IOException;
import java.util.Optional;

/**
 * Where an executor keeps the map outputs of Ferry shuffles until reducers have read them. The
 * reader on the same executor opens blocks here directly; the block server serves the same blocks
 * to remote reducers. Implementations are thread-safe.
 */
public interface MapOutputStore
        extends AutoCloseable
{
    /** Short name for logs and metrics, e.g. "host". */
    String name();

    /**
     * Stores a map task's output. An earlier output of the same map index of the same shuffle (a
     * superseded attempt) is released. Returns the bytes that went to disk instead of memory.
     */
    long commit(MapOutputId id, EncodedMapOutput output)
            throws IOException;

    /** The block, or empty when this store has no such map output (lost, released or never written here). */
    Optional<BlockBytes> open(int shuffleId, long mapId, int reduceId)
            throws IOException;

    /** Releases one map output, e.g. of a failed task attempt. */
    void remove(int shuffleId, long mapId);

    /** Releases every map output of a shuffle; returns how many. */
    int removeShuffle(int shuffleId);

    /** Bytes held in memory and on disk now. */
    long memoryBytes();

    long diskBytes();

    @Override
    void close();
}
