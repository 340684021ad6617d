package dev.ferry.shuffle.transport.rdma.verbs;

import java.io.Closeable;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * One reliable connection (an RC queue pair with its completion queue) to a peer device, used to
 * post one-sided READs. The peer's CPU takes no part: its NIC serves READs from its region table.
 * Not thread-safe: one fetcher drives a connection, like a QP without locking.
 */
public interface VerbsConnection
        extends Closeable
{
    /** The id packed into this connection's work request ids (see {@link WorkRequestIds}). */
    int id();

    InetSocketAddress peer();

    /**
     * Posts READs in order. Past the queue depth the post fails with "Cannot allocate memory",
     * possibly after a prefix of the list was posted (as {@code ibv_post_send} does); posting on a
     * closed connection fails with "Trying to post send on closed QP".
     */
    void postReads(List<ReadRequest> requests)
            throws VerbsException;

    /** Up to {@code max} completions, without blocking; empty when none is ready. */
    List<Completion> poll(int max)
            throws VerbsException;

    boolean isOpen();

    /** Disconnects; outstanding requests complete with {@code WR_FLUSH_ERR}. Idempotent. */
    @Override
    void close();
}
