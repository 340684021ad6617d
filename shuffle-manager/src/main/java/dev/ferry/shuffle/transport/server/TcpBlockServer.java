package dev.ferry.shuffle.transport.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.ferry.shuffle.transport.BlockServer;
import dev.ferry.shuffle.transport.BlockSource;
import dev.ferry.shuffle.transport.DeviceBlockSource;
import dev.ferry.shuffle.transport.TransportConfigKeys;
import dev.ferry.shuffle.transport.auth.HandshakeFailures;
import dev.ferry.shuffle.transport.auth.TcpAuth;
import dev.ferry.shuffle.transport.wire.FetchRoute;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * Serves an executor's blocks: one thread accepts (at most {@code maxConnections} open, one more
 * closed at once, counted and logged throttled), and each connection is served on a thread of its
 * own by a {@link ConnectionHandler}, which answers a fetch on its route's {@link RouteServer}. The
 * routes served are given to the builder ({@code routing.BlockServers} assembles the usual set from
 * the executor's shared memory, NIC and device store); this class knows none of them.
 */
public final class TcpBlockServer
        implements BlockServer
{
    private static final Logger LOG = LoggerFactory.getLogger(TcpBlockServer.class);

    private final ServedBlocks blocks;
    private final long maxFrameBytes;
    private final Map<FetchRoute, RouteServer> routes;
    private final Optional<SessionAdmissions> admissions;
    private final TcpAuth auth;
    private final ServerSocket serverSocket;
    private final ExecutorService threads;
    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicLong refusedConnections = new AtomicLong();
    // Ids of TCP sessions, to which RDMA connection tokens are bound (revoked when the session closes).
    private final AtomicLong sessions = new AtomicLong();
    private final int maxConnections;
    private final ScheduledExecutorService deadlines;
    // Handshake and protocol failures, and connections over the cap: counted, logged once per peer host per minute.
    private final HandshakeFailures failures = new HandshakeFailures(Duration.ofMinutes(1));
    private volatile boolean closed;

    /** A server of {@code source}'s blocks, configured by the builder and bound by {@link Builder#start}. */
    public static Builder builder(BlockSource source)
    {
        return new Builder(source);
    }

    /** What a block server serves and how. Required: {@link #bind} and {@link #maxFrameBytes}; each route served is given with {@link #route}. */
    public static final class Builder
    {
        private final BlockSource source;
        private InetAddress bindAddress;
        private int port = -1;
        private long maxFrameBytes = -1;
        private final Map<FetchRoute, RouteServer> routes = new EnumMap<>(FetchRoute.class);
        private SessionAdmissions admissions;
        private TcpAuth auth = TcpAuth.none();
        private DeviceBlockSource deviceBlocks;
        private int maxConnections = TransportConfigKeys.SERVER_MAX_CONNECTIONS.defaultValue();

        private Builder(BlockSource source)
        {
            this.source = requireNonNull(source, "source is null");
        }

        /** Where to listen ({@code port} 0: any free port); an executor binds its own address, as Spark's block transfer service does. */
        public Builder bind(InetAddress address, int port)
        {
            this.bindAddress = requireNonNull(address, "address is null");
            this.port = port;
            return this;
        }

        /** The longest block frame this server sends (its readers' limit). */
        public Builder maxFrameBytes(long bytes)
        {
            this.maxFrameBytes = bytes;
            return this;
        }

        /** Answers fetches on {@code route} with {@code server} (the route packages' server-side handlers). */
        public Builder route(FetchRoute route, RouteServer server)
        {
            routes.put(requireNonNull(route, "route is null"), requireNonNull(server, "server is null"));
            return this;
        }

        /** Admits authenticated peers' RDMA queue pairs (null: this server has no NIC). */
        public Builder admissions(SessionAdmissions sessionAdmissions)
        {
            this.admissions = sessionAdmissions;
            return this;
        }

        /** With authentication enabled, a connection is served only after its peer proved it holds Spark's shared secret. */
        public Builder auth(TcpAuth auth)
        {
            this.auth = requireNonNull(auth, "auth is null");
            return this;
        }

        /** GPU-resident blocks the routes may borrow (null: none). */
        public Builder deviceBlocks(DeviceBlockSource blocks)
        {
            this.deviceBlocks = blocks;
            return this;
        }

        /** Connections open at once (each has a thread); one more is closed as soon as it is accepted, counted and logged (throttled). */
        public Builder maxConnections(int connections)
        {
            this.maxConnections = connections;
            return this;
        }

        /** Binds at once and starts accepting. */
        public TcpBlockServer start()
                throws IOException
        {
            if (bindAddress == null || maxFrameBytes < 0) {
                throw new IllegalStateException("A block server needs bind() and maxFrameBytes()");
            }
            return new TcpBlockServer(this);
        }
    }

    private TcpBlockServer(Builder builder)
            throws IOException
    {
        int maxConnections = builder.maxConnections;
        if (maxConnections <= 0) {
            throw new IllegalArgumentException(TransportConfigKeys.SERVER_MAX_CONNECTIONS.name() + " must be positive: " + maxConnections);
        }
        this.maxConnections = maxConnections;
        this.auth = requireNonNull(builder.auth, "auth is null");
        this.blocks = new ServedBlocks(builder.source, Optional.ofNullable(builder.deviceBlocks));
        this.maxFrameBytes = builder.maxFrameBytes;
        this.routes = Map.copyOf(builder.routes);
        this.admissions = Optional.ofNullable(builder.admissions);
        InetAddress bindAddress = builder.bindAddress;
        int port = builder.port;
        AtomicInteger counter = new AtomicInteger();
        this.threads = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "ferry-tcp-block-server-" + counter.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        this.deadlines = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "ferry-tcp-handshake-deadlines");
            thread.setDaemon(true);
            return thread;
        });
        ServerSocket socket = new ServerSocket();
        try {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(bindAddress, port));
        }
        catch (IOException e) {
            socket.close();
            threads.shutdownNow();
            deadlines.shutdownNow();
            throw new IOException("Cannot bind the Ferry block server to " + bindAddress.getHostAddress() + ":" + port + ": " + e.getMessage(), e);
        }
        this.serverSocket = socket;
        threads.execute(this::acceptLoop);
    }

    @Override
    public int port()
    {
        return serverSocket.getLocalPort();
    }

    /** Connections accepted so far (for connection-reuse checks). */
    public int acceptedConnections()
    {
        return accepted.get();
    }

    /** HOST_SHM / HOST_STAGED blocks copied into a file of their own, because the store did not hold them in shared memory. */
    public long publishedCopies()
    {
        return blocks.publishedCopies();
    }

    /** Blocks looked up for a peer (opened or borrowed) so far: what a peer that did not authenticate never causes. */
    public long blocksOpened()
    {
        return blocks.opened();
    }

    /** Connections closed at once because {@code maxConnections} were open. */
    public long refusedConnections()
    {
        return refusedConnections.get();
    }

    /** Failed handshakes and protocol violations of peers (each counted; logged once per peer host per minute). */
    public HandshakeFailures failures()
    {
        return failures;
    }

    /** Connections open now. */
    public int openConnections()
    {
        return connections.size();
    }

    private void acceptLoop()
    {
        while (!closed) {
            try {
                Socket socket = serverSocket.accept();
                if (connections.size() >= maxConnections) {
                    refusedConnections.incrementAndGet();
                    failures.record(ConnectionHandler.host(socket), "Ferry TCP block server refused a connection from " + socket.getRemoteSocketAddress() + ": "
                            + maxConnections + " connections are open (" + TransportConfigKeys.SERVER_MAX_CONNECTIONS.name() + ")");
                    ConnectionHandler.closeQuietly(socket);
                    continue;
                }
                socket.setTcpNoDelay(true);
                accepted.incrementAndGet();
                connections.add(socket);
                threads.execute(new ConnectionHandler(socket, sessions.incrementAndGet(), auth, maxFrameBytes, routes, admissions, blocks, failures, deadlines,
                        () -> closed, () -> connections.remove(socket)));
            }
            catch (IOException e) {
                if (!closed) {
                    LOG.warn("Ferry TCP block server stopped accepting: {}", e.getMessage());
                }
                return;
            }
        }
    }

    @Override
    public void close()
    {
        closed = true;
        try {
            serverSocket.close();
        }
        catch (IOException e) {
            LOG.debug("Closing the Ferry TCP server socket: {}", e.getMessage());
        }
        for (Socket socket : connections) {
            try {
                socket.close();
            }
            catch (IOException e) {
                LOG.debug("Closing a Ferry TCP connection: {}", e.getMessage());
            }
        }
        threads.shutdownNow();
        deadlines.shutdownNow();
        try {
            threads.awaitTermination(10, TimeUnit.SECONDS);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
