package dev.ferry.shuffle.transport.client;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.BlockFetchException;
import dev.ferry.shuffle.transport.FetchedBlocks;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.ShuffleTransport;
import dev.ferry.shuffle.transport.auth.TcpAuth;
import org.apache.arrow.memory.BufferAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The baseline transport: blocking sockets, connections pooled per peer (a connection serves one
 * request at a time; concurrent reducers open more, at most {@link FetchLimits#maxConnectionsPerPeer}
 * per peer, which bounds the bytes in flight per peer). A refused or timed-out connect is retried
 * with a doubling wait; a connection that failed in any way is closed, never reused, and the peer's
 * other idle connections are closed with it (the peer may have left).
 */
public final class TcpShuffleTransport
        implements ShuffleTransport
{
    public static final String ROUTE = "TCP";
    private static final Logger LOG = LoggerFactory.getLogger(TcpShuffleTransport.class);

    private final int timeoutMillis;
    private final long maxFrameBytes;
    private final TcpAuth auth;
    private static final AtomicLong CONNECT_RETRIES = new AtomicLong();

    private final FetchLimits limits;
    private final Map<PeerAddress, LinkedBlockingDeque<TcpConnection>> idle = new ConcurrentHashMap<>();
    private final Map<PeerAddress, Semaphore> inFlight = new ConcurrentHashMap<>();
    private final AtomicLong opened = new AtomicLong();
    private volatile boolean closed;

    public TcpShuffleTransport(int timeoutMillis, long maxFrameBytes)
    {
        this(timeoutMillis, maxFrameBytes, TcpAuth.none());
    }

    /** With {@code auth} enabled, every new connection authenticates with Spark's shared secret before its first request. */
    public TcpShuffleTransport(int timeoutMillis, long maxFrameBytes, TcpAuth auth)
    {
        this(timeoutMillis, maxFrameBytes, auth, FetchLimits.defaults());
    }

    /** As above, with connection retries and the per-peer bound of {@code limits}. */
    public TcpShuffleTransport(int timeoutMillis, long maxFrameBytes, TcpAuth auth, FetchLimits limits)
    {
        this.limits = java.util.Objects.requireNonNull(limits, "limits is null");
        this.auth = java.util.Objects.requireNonNull(auth, "auth is null");
        if (timeoutMillis <= 0) {
            throw new IllegalArgumentException("timeoutMillis must be positive: " + timeoutMillis);
        }
        this.timeoutMillis = timeoutMillis;
        this.maxFrameBytes = maxFrameBytes;
    }

    @Override
    public String routeName()
    {
        return ROUTE;
    }

    @Override
    public FetchedBlocks fetch(PeerAddress peer, List<ShuffleBlockRef> blocks, BufferAllocator allocator)
            throws IOException
    {
        return fetch(peer, blocks, ROUTE, connection -> connection.fetchInline(blocks, allocator));
    }

    /** Blocks streamed over the socket, reported as {@code route} (TCP, or IPOIB_TCP where the stream runs over IP-over-InfiniBand). */
    public FetchedBlocks fetch(PeerAddress peer, List<ShuffleBlockRef> blocks, BufferAllocator allocator, String route)
            throws IOException
    {
        return fetch(peer, blocks, route, connection -> connection.fetchInline(blocks, allocator));
    }

    /** One route's exchange on a pooled connection: what a route's client handler does with it. */
    @FunctionalInterface
    public interface Exchange
    {
        List<BlockBytes> run(TcpConnection connection)
                throws IOException;
    }

    /**
     * Runs {@code exchange} on a pooled (or new) connection to {@code peer}, within the peer's
     * connection limit, with this transport's retries and failure handling; the blocks are reported
     * as carried by {@code route}. The route packages' client handlers fetch through this.
     */
    public FetchedBlocks fetch(PeerAddress peer, List<ShuffleBlockRef> blocks, String route, Exchange exchange)
            throws IOException
    {
        if (closed) {
            throw new IOException("TCP shuffle transport is closed");
        }
        Semaphore slots = inFlight.computeIfAbsent(peer, key -> new Semaphore(limits.maxConnectionsPerPeer()));
        try {
            slots.acquire();
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("Interrupted waiting for a connection slot to " + peer);
        }
        try {
            return fetchHoldingSlot(peer, blocks, route, exchange);
        }
        finally {
            slots.release();
        }
    }

    private FetchedBlocks fetchHoldingSlot(PeerAddress peer, List<ShuffleBlockRef> blocks, String route, Exchange exchange)
            throws IOException
    {
        TcpConnection connection = idle.computeIfAbsent(peer, key -> new LinkedBlockingDeque<>()).pollFirst();
        if (connection == null) {
            connection = connect(peer);
        }
        List<BlockBytes> received;
        try {
            received = exchange.run(connection);
        }
        catch (IOException | RuntimeException e) {
            closeQuietly(connection);
            if (timedOut(e)) {
                evict(peer, "no answer within " + timeoutMillis + " ms");
                throw new BlockFetchException(peer, BlockFetchException.blockOf(e), "No answer from " + peer + " within " + timeoutMillis + " ms while fetching "
                        + describe(blocks) + ": " + e.getMessage(), e);
            }
            evict(peer, e.getMessage());
            throw new BlockFetchException(peer, BlockFetchException.blockOf(e), "Fetching " + describe(blocks) + " from " + peer + " failed: " + e.getMessage(), e);
        }
        if (closed) {
            closeQuietly(connection);
        }
        else {
            idle.computeIfAbsent(peer, key -> new LinkedBlockingDeque<>()).offerFirst(connection);
        }
        return new FetchedBlocks(route, received);
    }

    /**
     * A new connection; a refused or timed-out connect is transient (the peer's server may be
     * starting, or its backlog full) and is retried with a doubling wait. Anything after the
     * connection is made is not retried here: the reader turns it into a FetchFailedException.
     */
    private TcpConnection connect(PeerAddress peer)
            throws IOException
    {
        for (int attempt = 0; ; attempt++) {
            try {
                TcpConnection connection = new TcpConnection(peer, timeoutMillis, maxFrameBytes, auth);
                opened.incrementAndGet();
                return connection;
            }
            catch (ConnectException | SocketTimeoutException e) {
                if (attempt >= limits.connectRetries() || closed) {
                    throw new IOException("Cannot connect to " + peer + " after " + (attempt + 1) + " attempts: " + e.getMessage(), e);
                }
                Duration wait = limits.retryWait(attempt + 1);
                CONNECT_RETRIES.incrementAndGet();
                LOG.warn("Connecting to {} failed ({}); retry {} of {} in {} ms", peer, e.getMessage(), attempt + 1, limits.connectRetries(), wait.toMillis());
                try {
                    Thread.sleep(wait.toMillis());
                }
                catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("Interrupted before retrying the connection to " + peer);
                }
            }
            catch (IOException e) {
                throw new IOException("Cannot connect to " + peer + ": " + e.getMessage(), e);
            }
        }
    }

    private static boolean timedOut(Throwable failure)
    {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SocketTimeoutException) {
                return true;
            }
        }
        return false;
    }

    private static String describe(List<ShuffleBlockRef> blocks)
    {
        return blocks.size() == 1 ? "block " + blocks.get(0) : blocks.size() + " blocks (" + blocks.get(0) + (blocks.size() > 1 ? ", ..." : "") + ")";
    }

    /** After a failure the peer may be gone (an executor that left): its idle connections are closed rather than tried again. */
    private void evict(PeerAddress peer, String why)
    {
        LinkedBlockingDeque<TcpConnection> connections = idle.get(peer);
        if (connections == null || connections.isEmpty()) {
            return;
        }
        LOG.info("Closing {} idle connections to {} after a failure: {}", connections.size(), peer, why);
        for (TcpConnection connection = connections.pollFirst(); connection != null; connection = connections.pollFirst()) {
            closeQuietly(connection);
        }
    }

    /** Closes every idle connection to executor {@code executorId} (it left the cluster); returns how many. */
    public int closeConnectionsTo(String executorId)
    {
        int count = 0;
        for (Map.Entry<PeerAddress, LinkedBlockingDeque<TcpConnection>> entry : idle.entrySet()) {
            if (entry.getKey().executorId().equals(executorId)) {
                for (TcpConnection connection = entry.getValue().pollFirst(); connection != null; connection = entry.getValue().pollFirst()) {
                    closeQuietly(connection);
                    count++;
                }
                // The peer's slot semaphore stays: a fetch to it still in flight releases into it.
                idle.remove(entry.getKey());
            }
        }
        return count;
    }

    @Override
    public int peerLeft(String executorId)
    {
        return closeConnectionsTo(executorId);
    }

    /** Connections this transport opened so far (for reuse checks). */
    public long connectionsOpened()
    {
        return opened.get();
    }

    /** Idle pooled connections now. */
    public int idleConnections()
    {
        return idle.values().stream().mapToInt(LinkedBlockingDeque::size).sum();
    }

    /** Connection retries after transient errors, by every transport of this JVM (a metric; retries are also logged). */
    public static long connectRetries()
    {
        return CONNECT_RETRIES.get();
    }

    private static void closeQuietly(TcpConnection connection)
    {
        try {
            connection.close();
        }
        catch (IOException e) {
            LOG.debug("Closing a Ferry TCP connection: {}", e.getMessage());
        }
    }

    @Override
    public void close()
    {
        closed = true;
        List<TcpConnection> all = new ArrayList<>();
        idle.values().forEach(all::addAll);
        idle.clear();
        all.forEach(TcpShuffleTransport::closeQuietly);
    }
}
