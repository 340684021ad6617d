package dev.ferry.shuffle.transport.server;

import dev.ferry.shuffle.transport.auth.StreamAuthChannel;
import dev.ferry.shuffle.transport.auth.TcpAuth;
import dev.ferry.shuffle.transport.rdma.VerbsBlocks;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.ferry.device.DeviceStream;
import dev.ferry.device.IpcHandle;
import dev.ferry.device.pool.BlockLease;
import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.BlockServer;
import dev.ferry.shuffle.transport.BlockSource;
import dev.ferry.shuffle.transport.DeviceBlockSource;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.wire.BlockResponse;
import dev.ferry.shuffle.transport.wire.FetchDone;
import dev.ferry.shuffle.transport.wire.FetchFailure;
import dev.ferry.shuffle.transport.wire.FetchRequest;
import dev.ferry.shuffle.transport.wire.FrameReader;
import dev.ferry.shuffle.transport.wire.FrameWriter;
import dev.ferry.shuffle.transport.wire.GpuRdmaBlockResponse;
import dev.ferry.shuffle.transport.wire.GpuRdmaFetchRequest;
import dev.ferry.shuffle.transport.wire.IpcBlockResponse;
import dev.ferry.shuffle.transport.wire.IpcFetchRequest;
import dev.ferry.shuffle.transport.wire.Message;
import dev.ferry.shuffle.transport.wire.MessageType;
import dev.ferry.shuffle.transport.wire.RdmaAdmissionRequest;
import dev.ferry.shuffle.transport.wire.RdmaFetchRequest;
import dev.ferry.shuffle.transport.wire.ShmBlockResponse;
import dev.ferry.shuffle.transport.wire.ShmFetchRequest;
import dev.ferry.shuffle.transport.TransportConfigKeys;
import dev.ferry.shuffle.transport.auth.AuthBootstrap;
import dev.ferry.shuffle.transport.auth.AuthenticationException;
import dev.ferry.shuffle.transport.auth.HandshakeFailures;
import dev.ferry.shuffle.transport.crypto.GcmInputStream;
import dev.ferry.shuffle.transport.crypto.GcmOutputStream;
import dev.ferry.shuffle.transport.crypto.SessionKeys;
import dev.ferry.shuffle.transport.shm.ShmBlockHandle;
import dev.ferry.shuffle.transport.shm.ShmBlockWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * Serves an executor's blocks over plain TCP: one thread accepts, one thread per connection reads
 * requests and streams each block from memory as it is. A block that cannot be served gets a
 * {@link FetchFailure} and the connection stays usable; a malformed frame closes the connection.
 * With a {@link ShmBlockWriter}, peers on the same node may instead ask for blocks published in
 * shared memory ({@link ShmFetchRequest}, HOST_SHM): the bytes then never cross the socket, only
 * their handles; with {@link VerbsBlocks}, peers on other nodes may ask for blocks registered with
 * the NIC ({@link RdmaFetchRequest}) and READ them one-sidedly. With a {@link DeviceBlockSource}
 * (map outputs in GPU memory), same-node peers may ask for a block's exported CUDA IPC handle
 * ({@link IpcFetchRequest}, NVLINK / PCIE_P2P) and, with verbs too, other nodes' peers for its
 * device memory registered with the NIC ({@link GpuRdmaFetchRequest}, GPUDIRECT_RDMA); the block is
 * borrowed from the store, not copied. A block spilled off the GPU is answered through host memory
 * instead (shared memory or host registration), and the reader counts the route that carried it.
 * Either way a request's blocks are released when the reader says it has them ({@code FetchDone}), at
 * its next request, or at the connection's close.
 */
public final class TcpBlockServer
        implements BlockServer
{
    private static final Logger LOG = LoggerFactory.getLogger(TcpBlockServer.class);

    private final BlockSource source;
    private final long maxFrameBytes;
    private final ShmBlockWriter shmWriter;
    private final VerbsBlocks verbs;
    private final DeviceBlockSource deviceBlocks;
    private final TcpAuth auth;
    private final ServerSocket serverSocket;
    private final ExecutorService threads;
    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicLong publishedCopies = new AtomicLong();
    private final AtomicLong blocksOpened = new AtomicLong();
    private final AtomicLong refusedConnections = new AtomicLong();
    // Ids of TCP sessions, to which RDMA connection tokens are bound (revoked when the session closes).
    private final AtomicLong sessions = new AtomicLong();
    private final int maxConnections;
    private final ScheduledExecutorService deadlines;
    // Handshake and protocol failures, and connections over the cap: counted, logged once per peer host per minute.
    private final HandshakeFailures failures = new HandshakeFailures(Duration.ofMinutes(1));
    private static final int STAGING_BYTES = 1 << 20;
    // One staging buffer per serving thread (a connection is served by one thread at a time), reused for every staged block.
    private static final ThreadLocal<ByteBuffer> STAGING = ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(STAGING_BYTES));
    private volatile boolean closed;

    /** A server of {@code source}'s blocks, configured by the builder and bound by {@link Builder#start}. */
    public static Builder builder(BlockSource source)
    {
        return new Builder(source);
    }

    /**
     * What a block server serves and how. Required: {@link #bind} and {@link #maxFrameBytes}; the
     * routes beyond TCP are on where their part is given (shared memory: HOST_SHM/HOST_STAGED, and
     * with device blocks NVLINK/PCIE_P2P; a NIC: RDMA, and with device blocks GPUDIRECT_RDMA).
     */
    public static final class Builder
    {
        private final BlockSource source;
        private InetAddress bindAddress;
        private int port = -1;
        private long maxFrameBytes = -1;
        private ShmBlockWriter shmWriter;
        private VerbsBlocks verbs;
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

        /** Same-node peers' HOST_SHM / HOST_STAGED requests (null: none). */
        public Builder sharedMemory(ShmBlockWriter writer)
        {
            this.shmWriter = writer;
            return this;
        }

        /** Other nodes' RDMA READs of blocks registered with this NIC (null: none). */
        public Builder verbs(VerbsBlocks nic)
        {
            this.verbs = nic;
            return this;
        }

        /** With authentication enabled, a connection is served only after its peer proved it holds Spark's shared secret. */
        public Builder auth(TcpAuth auth)
        {
            this.auth = requireNonNull(auth, "auth is null");
            return this;
        }

        /** GPU-resident blocks lent for the NVLINK, PCIE_P2P and GPUDIRECT_RDMA routes (null: none). */
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
        BlockSource source = builder.source;
        InetAddress bindAddress = builder.bindAddress;
        int port = builder.port;
        long maxFrameBytes = builder.maxFrameBytes;
        ShmBlockWriter shmWriter = builder.shmWriter;
        VerbsBlocks verbs = builder.verbs;
        TcpAuth auth = builder.auth;
        DeviceBlockSource deviceBlocks = builder.deviceBlocks;
        int maxConnections = builder.maxConnections;
        if (maxConnections <= 0) {
            throw new IllegalArgumentException(TransportConfigKeys.SERVER_MAX_CONNECTIONS.name() + " must be positive: " + maxConnections);
        }
        this.maxConnections = maxConnections;
        this.deviceBlocks = deviceBlocks;
        this.auth = requireNonNull(auth, "auth is null");
        this.source = requireNonNull(source, "source is null");
        this.maxFrameBytes = maxFrameBytes;
        this.shmWriter = shmWriter;
        this.verbs = verbs;
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
        return publishedCopies.get();
    }

    /** Blocks looked up for a peer (opened or borrowed) so far: what a peer that did not authenticate never causes. */
    public long blocksOpened()
    {
        return blocksOpened.get();
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
                    failures.record(host(socket), "Ferry TCP block server refused a connection from " + socket.getRemoteSocketAddress() + ": "
                            + maxConnections + " connections are open (" + TransportConfigKeys.SERVER_MAX_CONNECTIONS.name() + ")");
                    closeQuietly(socket);
                    continue;
                }
                socket.setTcpNoDelay(true);
                accepted.incrementAndGet();
                connections.add(socket);
                threads.execute(() -> serve(socket));
            }
            catch (IOException e) {
                if (!closed) {
                    LOG.warn("Ferry TCP block server stopped accepting: {}", e.getMessage());
                }
                return;
            }
        }
    }

    private void serve(Socket socket)
    {
        HeldBlocks held = new HeldBlocks(shmWriter);
        long session = sessions.incrementAndGet();
        try (socket) {
            InputStream in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
            OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
            if (auth.enabled()) {
                SessionKeys keys;
                // The whole handshake has one deadline (not one per read), so a peer dripping bytes cannot hold a connection slot.
                ScheduledFuture<?> deadline = deadlines.schedule(() -> closeQuietly(socket), auth.timeout().toMillis(), TimeUnit.MILLISECONDS);
                try {
                    keys = AuthBootstrap.authenticateServer(new StreamAuthChannel(socket, in, out, MessageType.SERVER_HANDSHAKE), auth.settings(), auth.timeout());
                }
                catch (AuthenticationException e) {
                    failures.record(host(socket), "Ferry TCP block server refused " + socket.getRemoteSocketAddress() + ": " + e.getMessage());
                    return;
                }
                finally {
                    deadline.cancel(false);
                }
                if (auth.encrypt()) {
                    in = new GcmInputStream(in, keys.receive());
                    out = new GcmOutputStream(out, keys.send());
                }
            }
            FrameReader reader = new FrameReader(in, maxFrameBytes, MessageType.REQUESTS);
            FrameWriter writer = new FrameWriter(out);
            while (!closed) {
                Message message = reader.read();
                if (message == null) {
                    return;
                }
                // By the peer's next message it has taken every block of its last request: let go of what was held for them.
                held.releaseAll();
                if (message instanceof FetchDone) {
                    continue;
                }
                if (message instanceof RdmaAdmissionRequest && verbs != null) {
                    // Only a peer that got this far (authenticated, where spark.authenticate is on) gets a token its queue pair can present.
                    writer.write(verbs.admit(session, ((RdmaAdmissionRequest) message).readerNicHost()));
                    writer.flush();
                    continue;
                }
                if (message instanceof IpcFetchRequest && deviceBlocks != null && shmWriter != null) {
                    answerIpc(((IpcFetchRequest) message).blocks(), writer, held);
                }
                else if (message instanceof GpuRdmaFetchRequest && deviceBlocks != null && verbs != null) {
                    answerGpuRdma(((GpuRdmaFetchRequest) message).blocks(), writer, held);
                }
                else if (message instanceof ShmFetchRequest && shmWriter != null) {
                    answerShm(((ShmFetchRequest) message).blocks(), writer, held);
                }
                else if (message instanceof RdmaFetchRequest && verbs != null) {
                    answerRdma(((RdmaFetchRequest) message).blocks(), writer, held);
                }
                else if (message instanceof FetchRequest) {
                    answer((FetchRequest) message, writer);
                }
                else {
                    throw new IOException("Expected a fetch request, got " + message.type());
                }
                writer.flush();
            }
        }
        catch (SocketException e) {
            // The peer went away (task killed, executor lost); nothing to answer.
            LOG.debug("Ferry TCP connection closed: {}", e.getMessage());
        }
        catch (IOException | RuntimeException e) {
            if (!closed) {
                failures.record(host(socket), "Ferry TCP connection from " + socket.getRemoteSocketAddress() + " failed: " + e);
            }
        }
        finally {
            held.close();
            if (verbs != null) {
                verbs.revokeSession(session);
            }
            connections.remove(socket);
        }
    }

    private void answerShm(FetchRequest request, FrameWriter writer, HeldBlocks held)
            throws IOException
    {
        for (int index = 0; index < request.blocks().size(); index++) {
            Optional<BlockLease> lease = deviceBlocks == null ? Optional.empty() : borrow(request.ref(index));
            if (lease.isPresent()) {
                try (BlockLease borrowed = lease.get()) {
                    stageShm(request, index, borrowed, writer, held);
                }
                continue;
            }
            Optional<BlockBytes> block = openOrFail(request, index, writer);
            if (block.isPresent()) {
                publishShm(request, index, block.get(), writer, held);
            }
        }
    }

    /**
     * HOST_STAGED: a block in GPU memory is copied out chunk by chunk through this connection's
     * reused staging buffer straight into its shared-memory file, one copy of the block on this
     * side (not a copy into a host buffer of the block's size, then another into the file).
     */
    private void stageShm(FetchRequest request, int index, BlockLease lease, FrameWriter writer, HeldBlocks held)
            throws IOException
    {
        if (lease.length() == 0) {
            writer.write(new BlockResponse(request.requestId(), index, 0), null);
            return;
        }
        ShmBlockHandle handle;
        try (DeviceStream stream = deviceBlocks.runtime().newStream(lease.buffer().location().device())) {
            // A copy into a Java buffer is complete when copyToHost returns, so the chunk can be written at once.
            handle = shmWriter.publish(lease.length(), STAGING.get(), (offset, chunk) -> stream.copyToHost(lease.buffer(), offset, chunk));
        }
        catch (RuntimeException e) {
            writer.write(new FetchFailure(request.requestId(), index, "Cannot stage " + request.ref(index) + " from GPU memory into shared memory: " + e.getMessage()));
            return;
        }
        held.published(handle);
        writer.write(new ShmBlockResponse(request.requestId(), index, handle.toBytes()));
    }

    /**
     * A block the store keeps in shared memory is answered with its place there, and this
     * connection holds the block (so the store cannot delete the file) until the peer's next
     * request or the connection's close; by then the peer has mapped or copied it. Any other block
     * (spilled to disk, or staged from a GPU) is copied into a file of its own first.
     */
    private void publishShm(FetchRequest request, int index, BlockBytes block, FrameWriter writer, HeldBlocks held)
            throws IOException
    {
        if (block.length() == 0) {
            // Shared memory holds no empty files: an empty block is answered in the stream itself.
            block.close();
            writer.write(new BlockResponse(request.requestId(), index, 0), null);
            return;
        }
        if (block.sharedAt().isPresent()) {
            held.shared(block);
            writer.write(new ShmBlockResponse(request.requestId(), index, block.sharedAt().get().toBytes()));
            return;
        }
        publishedCopies.incrementAndGet();
        ShmBlockHandle handle;
        try (BlockBytes bytes = block) {
            handle = shmWriter.publish(bytes.buffer().nioBuffer(0, Math.toIntExact(bytes.length())));
        }
        catch (RuntimeException e) {
            writer.write(new FetchFailure(request.requestId(), index, "Cannot publish " + request.ref(index) + " in shared memory: " + e.getMessage()));
            return;
        }
        held.published(handle);
        writer.write(new ShmBlockResponse(request.requestId(), index, handle.toBytes()));
    }

    /** NVLINK / PCIE_P2P: the borrowed block's IPC handle; a spilled block through shared memory (HOST_STAGED). */
    private void answerIpc(FetchRequest request, FrameWriter writer, HeldBlocks held)
            throws IOException
    {
        for (int index = 0; index < request.blocks().size(); index++) {
            ShuffleBlockRef ref = request.ref(index);
            Optional<BlockLease> lease = borrow(ref);
            if (lease.isPresent()) {
                IpcHandle handle;
                try {
                    handle = deviceBlocks.runtime().exportIpc(lease.get().buffer());
                }
                catch (RuntimeException e) {
                    lease.get().close();
                    writer.write(new FetchFailure(request.requestId(), index, "Cannot export " + ref + " over CUDA IPC: " + e.getMessage()));
                    continue;
                }
                // Importers hold the exported memory through its IPC lease; ours keeps the block from spilling meanwhile.
                held.lent(lease.get());
                writer.write(new IpcBlockResponse(request.requestId(), index, handle.toBytes()));
                continue;
            }
            Optional<BlockBytes> block = openOrFail(request, index, writer);
            if (block.isPresent()) {
                publishShm(request, index, block.get(), writer, held);
            }
        }
    }

    /** GPUDIRECT_RDMA: the borrowed block's device memory registered with the NIC; a spilled block from host memory (RDMA_HOST_STAGED). */
    private void answerGpuRdma(FetchRequest request, FrameWriter writer, HeldBlocks held)
            throws IOException
    {
        for (int index = 0; index < request.blocks().size(); index++) {
            ShuffleBlockRef ref = request.ref(index);
            Optional<BlockLease> lease = borrow(ref);
            if (lease.isPresent()) {
                VerbsBlocks.Exported export;
                try {
                    export = verbs.exportDevice(request.requestId(), index, deviceBlocks.runtime(), lease.get());
                }
                catch (IOException | RuntimeException e) {
                    writer.write(new FetchFailure(request.requestId(), index, "Cannot register the GPU memory of " + ref + " with " + verbs.deviceName() + ": " + e.getMessage()));
                    continue;
                }
                held.exported(export);
                writer.write(new GpuRdmaBlockResponse(export.response()));
                continue;
            }
            Optional<BlockBytes> block = openOrFail(request, index, writer);
            if (block.isPresent()) {
                registerHost(request, index, block.get(), writer, held);
            }
        }
    }

    private Optional<BlockLease> borrow(ShuffleBlockRef ref)
    {
        try {
            blocksOpened.incrementAndGet();
            return deviceBlocks.borrow(ref);
        }
        catch (RuntimeException e) {
            LOG.debug("Borrowing {} from the device store: {}", ref, e.getMessage());
            return Optional.empty();
        }
    }

    private Optional<BlockBytes> openOrFail(FetchRequest request, int index, FrameWriter writer)
            throws IOException
    {
        Optional<BlockBytes> block;
        try {
            blocksOpened.incrementAndGet();
            block = source.open(request.ref(index));
        }
        catch (IOException | RuntimeException e) {
            writer.write(new FetchFailure(request.requestId(), index, "Cannot read " + request.ref(index) + ": " + e.getMessage()));
            return Optional.empty();
        }
        if (block.isEmpty()) {
            writer.write(new FetchFailure(request.requestId(), index, "No map output for " + request.ref(index) + " on this executor"));
        }
        return block;
    }

    private void answerRdma(FetchRequest request, FrameWriter writer, HeldBlocks held)
            throws IOException
    {
        for (int index = 0; index < request.blocks().size(); index++) {
            Optional<BlockBytes> block = openOrFail(request, index, writer);
            if (block.isPresent()) {
                registerHost(request, index, block.get(), writer, held);
            }
        }
    }

    private void registerHost(FetchRequest request, int index, BlockBytes block, FrameWriter writer, HeldBlocks held)
            throws IOException
    {
        VerbsBlocks.Exported export;
        try {
            export = verbs.export(request.requestId(), index, block);
        }
        catch (IOException | RuntimeException e) {
            writer.write(new FetchFailure(request.requestId(), index, "Cannot register " + request.ref(index) + " with " + verbs.deviceName() + ": " + e.getMessage()));
            return;
        }
        held.exported(export);
        writer.write(export.response());
    }

    private void answer(FetchRequest request, FrameWriter writer)
            throws IOException
    {
        for (int index = 0; index < request.blocks().size(); index++) {
            Optional<BlockBytes> block;
            try {
                blocksOpened.incrementAndGet();
                block = source.open(request.ref(index));
            }
            catch (IOException | RuntimeException e) {
                writer.write(new FetchFailure(request.requestId(), index, "Cannot read " + request.ref(index) + ": " + e.getMessage()));
                continue;
            }
            if (block.isEmpty()) {
                writer.write(new FetchFailure(request.requestId(), index, "No map output for " + request.ref(index) + " on this executor"));
                continue;
            }
            try (BlockBytes bytes = block.get()) {
                writer.write(new BlockResponse(request.requestId(), index, bytes.length()), bytes.buffer());
            }
        }
    }

    private static String host(Socket socket)
    {
        return socket.getInetAddress() == null ? "unknown" : socket.getInetAddress().getHostAddress();
    }

    private static void closeQuietly(Socket socket)
    {
        try {
            socket.close();
        }
        catch (IOException e) {
            LOG.debug("Closing a Ferry TCP connection: {}", e.getMessage());
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
