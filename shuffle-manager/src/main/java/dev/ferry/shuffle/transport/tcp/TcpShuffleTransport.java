package dev.ferry.shuffle.transport.tcp;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingDeque;

import dev.ferry.device.DeviceRuntime;
import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.FetchedBlocks;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.ShuffleTransport;
import dev.ferry.topology.route.Route;
import dev.ferry.transport.local.DeviceBlockReader;
import dev.ferry.transport.local.ShmBlockReader;
import dev.ferry.transport.metrics.RouteCounters;
import org.apache.arrow.memory.BufferAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The baseline transport: blocking sockets, connections pooled per peer (a connection serves one
 * request at a time; concurrent reducers open more). A connection that failed in any way is
 * closed, never reused.
 */
public final class TcpShuffleTransport
        implements ShuffleTransport
{
    public static final String ROUTE = "TCP";
    private static final Logger LOG = LoggerFactory.getLogger(TcpShuffleTransport.class);

    private final int timeoutMillis;
    private final long maxFrameBytes;
    private final TcpAuth auth;
    private final Map<PeerAddress, LinkedBlockingDeque<TcpConnection>> idle = new ConcurrentHashMap<>();
    private volatile boolean closed;

    public TcpShuffleTransport(int timeoutMillis, long maxFrameBytes)
    {
        this(timeoutMillis, maxFrameBytes, TcpAuth.none());
    }

    /** With {@code auth} enabled, every new connection authenticates with Spark's shared secret before its first request. */
    public TcpShuffleTransport(int timeoutMillis, long maxFrameBytes, TcpAuth auth)
    {
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
        return fetch(peer, blocks, allocator, ROUTE, connection -> connection.fetch(blocks, allocator));
    }

    /** Blocks of a same-node peer through shared memory (HOST_SHM, or HOST_STAGED for GPU-resident blocks); only handles cross the socket. */
    public FetchedBlocks fetchShm(PeerAddress peer, List<ShuffleBlockRef> blocks, BufferAllocator allocator, String route, ShmBlockReader shm)
            throws IOException
    {
        return fetch(peer, blocks, allocator, route, connection -> connection.fetchShm(blocks, allocator, shm));
    }

    /** Blocks of another node's peer by one-sided RDMA READs; the socket carries only the request and the remote slices. */
    public FetchedBlocks fetchRdma(PeerAddress peer, List<ShuffleBlockRef> blocks, BufferAllocator allocator, String route, VerbsBlocks verbs)
            throws IOException
    {
        return fetch(peer, blocks, allocator, route, connection -> connection.fetchRdma(blocks, allocator, verbs));
    }

    /** GPU-resident blocks of a same-node peer over CUDA IPC, peer-to-peer over {@code route} (NVLINK or PCIE_P2P); spilled ones HOST_STAGED. */
    public FetchedBlocks fetchIpc(PeerAddress peer, List<ShuffleBlockRef> blocks, BufferAllocator allocator, Route route, DeviceRuntime runtime,
            DeviceBlockReader device, ShmBlockReader staged, RouteCounters counters)
            throws IOException
    {
        List<String> carried = new ArrayList<>();
        FetchedBlocks fetched = fetch(peer, blocks, allocator, route.name(), connection -> connection.fetchIpc(blocks, allocator, runtime, device, route, staged, counters, carried));
        return new FetchedBlocks(fetched.route(), fetched.blocks(), carried);
    }

    /** GPU-resident blocks of another node's peer by GPUDirect RDMA READs into this executor's GPU; spilled ones RDMA_HOST_STAGED. */
    public FetchedBlocks fetchGpuRdma(PeerAddress peer, List<ShuffleBlockRef> blocks, BufferAllocator allocator, VerbsBlocks verbs, DeviceRuntime runtime,
            RouteCounters counters)
            throws IOException
    {
        List<String> carried = new ArrayList<>();
        FetchedBlocks fetched = fetch(peer, blocks, allocator, Route.GPUDIRECT_RDMA.name(), connection -> connection.fetchGpuRdma(blocks, allocator, verbs, runtime, counters, carried));
        return new FetchedBlocks(fetched.route(), fetched.blocks(), carried);
    }

    /** Blocks streamed over the socket, reported as {@code route} (TCP, or IPOIB_TCP where the stream runs over IP-over-InfiniBand). */
    public FetchedBlocks fetch(PeerAddress peer, List<ShuffleBlockRef> blocks, BufferAllocator allocator, String route)
            throws IOException
    {
        return fetch(peer, blocks, allocator, route, connection -> connection.fetch(blocks, allocator));
    }

    @FunctionalInterface
    private interface Exchange
    {
        List<BlockBytes> run(TcpConnection connection)
                throws IOException;
    }

    private FetchedBlocks fetch(PeerAddress peer, List<ShuffleBlockRef> blocks, BufferAllocator allocator, String route, Exchange exchange)
            throws IOException
    {
        if (closed) {
            throw new IOException("TCP shuffle transport is closed");
        }
        TcpConnection connection = idle.computeIfAbsent(peer, key -> new LinkedBlockingDeque<>()).pollFirst();
        if (connection == null) {
            try {
                connection = new TcpConnection(peer, timeoutMillis, maxFrameBytes, auth);
            }
            catch (IOException e) {
                throw new IOException("Cannot connect to " + peer + ": " + e.getMessage(), e);
            }
        }
        List<BlockBytes> received;
        try {
            received = exchange.run(connection);
        }
        catch (SocketTimeoutException e) {
            closeQuietly(connection);
            throw new IOException("No answer from " + peer + " within " + timeoutMillis + " ms", e);
        }
        catch (IOException | RuntimeException e) {
            closeQuietly(connection);
            throw new IOException("Fetching " + blocks.size() + " blocks from " + peer + " failed: " + e.getMessage(), e);
        }
        if (closed) {
            closeQuietly(connection);
        }
        else {
            idle.get(peer).offerFirst(connection);
        }
        return new FetchedBlocks(route, received);
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
