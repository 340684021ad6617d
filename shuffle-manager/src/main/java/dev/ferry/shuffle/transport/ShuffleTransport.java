package dev.ferry.shuffle.transport;

import java.io.IOException;
import java.util.List;

import org.apache.arrow.memory.BufferAllocator;

/**
 * How a reducer gets blocks from another executor. Deliberately narrow: one call fetches some
 * blocks of one peer, and the answer names the route that carried them, so topology-aware
 * transports (NVLink, RDMA) can slot in beside the TCP baseline. Any failure is an
 * {@link IOException} naming the peer; the reader turns it into Spark's FetchFailedException.
 * Implementations are thread-safe.
 */
public interface ShuffleTransport
        extends AutoCloseable
{
    /** The route name reported for blocks this transport carries, e.g. "TCP". */
    String routeName();

    /** Fetches {@code blocks} from {@code peer}; buffers come from {@code allocator} and belong to the caller. */
    FetchedBlocks fetch(PeerAddress peer, List<ShuffleBlockRef> blocks, BufferAllocator allocator)
            throws IOException;

    /**
     * Executor {@code executorId} left the cluster: close the pooled connections to it and forget
     * what was cached about it (its route), so nothing is held for a peer that will not answer.
     * Returns how many connections were closed. A transport that keeps nothing per peer has
     * nothing to drop.
     */
    default int peerLeft(String executorId)
    {
        return 0;
    }

    @Override
    void close();
}
