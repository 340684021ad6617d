package dev.ferry.shuffle.transport.tcp;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.ferry.device.IpcHandle;
import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.BlockFetchException;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.tcp.protocol.BlockResponse;
import dev.ferry.shuffle.transport.tcp.protocol.FetchDone;
import dev.ferry.shuffle.transport.tcp.protocol.FetchFailure;
import dev.ferry.shuffle.transport.tcp.protocol.FetchRequest;
import dev.ferry.shuffle.transport.tcp.protocol.FrameReader;
import dev.ferry.shuffle.transport.tcp.protocol.FrameWriter;
import dev.ferry.shuffle.transport.tcp.protocol.GpuRdmaBlockResponse;
import dev.ferry.shuffle.transport.tcp.protocol.GpuRdmaFetchRequest;
import dev.ferry.shuffle.transport.tcp.protocol.IpcBlockResponse;
import dev.ferry.shuffle.transport.tcp.protocol.IpcFetchRequest;
import dev.ferry.shuffle.transport.tcp.protocol.Message;
import dev.ferry.shuffle.transport.tcp.protocol.MessageType;
import dev.ferry.shuffle.transport.tcp.protocol.RdmaAdmission;
import dev.ferry.shuffle.transport.tcp.protocol.RdmaAdmissionRequest;
import dev.ferry.shuffle.transport.tcp.protocol.RdmaBlockResponse;
import dev.ferry.shuffle.transport.tcp.protocol.RdmaFetchRequest;
import dev.ferry.shuffle.transport.tcp.protocol.ShmBlockResponse;
import dev.ferry.shuffle.transport.tcp.protocol.ShmFetchRequest;
import dev.ferry.topology.route.Route;
import dev.ferry.transport.auth.AuthBootstrap;
import dev.ferry.transport.crypto.GcmInputStream;
import dev.ferry.transport.crypto.GcmOutputStream;
import dev.ferry.transport.crypto.SessionKeys;
import dev.ferry.transport.local.DeviceBlockReader;
import dev.ferry.transport.local.ShmBlockHandle;
import dev.ferry.transport.local.ShmBlockReader;
import dev.ferry.transport.metrics.RouteCounters;
import dev.ferry.transport.verbs.VerbsConnection;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

import static java.util.Objects.requireNonNull;

/** One client connection to a peer's block server; one request at a time (callers synchronize on it). */
final class TcpConnection
        implements AutoCloseable
{
    private final PeerAddress peer;
    private final Socket socket;
    private final FrameReader reader;
    private final FrameWriter writer;
    private long nextRequestId;
    // The peer's NIC listener, once it admitted a queue pair of ours: where to look for a pooled connection next time.
    private InetSocketAddress peerNic;

    TcpConnection(PeerAddress peer, int timeoutMillis, long maxFrameBytes)
            throws IOException
    {
        this(peer, timeoutMillis, maxFrameBytes, TcpAuth.none());
    }

    /** Connects and, with {@code auth} enabled, proves Spark's shared secret before anything else is sent (and encrypts what follows where {@code auth} says). */
    TcpConnection(PeerAddress peer, int timeoutMillis, long maxFrameBytes, TcpAuth auth)
            throws IOException
    {
        this.peer = requireNonNull(peer, "peer is null");
        Socket connected = new Socket();
        try {
            connected.setTcpNoDelay(true);
            connected.setSoTimeout(timeoutMillis);
            connected.connect(new InetSocketAddress(peer.host(), peer.port()), timeoutMillis);
            InputStream in = new BufferedInputStream(connected.getInputStream(), 64 * 1024);
            OutputStream out = new BufferedOutputStream(connected.getOutputStream(), 64 * 1024);
            if (auth.enabled()) {
                SessionKeys keys = AuthBootstrap.authenticateClient(new StreamAuthChannel(connected, in, out, MessageType.CLIENT_HANDSHAKE), auth.settings(),
                        auth.timeout());
                if (auth.encrypt()) {
                    in = new GcmInputStream(in, keys.receive());
                    out = new GcmOutputStream(out, keys.send());
                }
            }
            this.reader = new FrameReader(in, maxFrameBytes, MessageType.RESPONSES);
            this.writer = new FrameWriter(out);
        }
        catch (IOException | RuntimeException e) {
            connected.close();
            throw e;
        }
        this.socket = connected;
    }

    /** Fetches the blocks in order; on any failure everything received so far is released. */
    List<BlockBytes> fetch(List<ShuffleBlockRef> blocks, BufferAllocator allocator)
            throws IOException
    {
        long requestId = nextRequestId++;
        return exchange(FetchRequest.of(requestId, blocks), blocks, (index, message) -> {
            BlockResponse response = expect(message, BlockResponse.class);
            checkOrder(requestId, index, response.requestId(), response.index());
            return new BlockBytes(reader.readBody(response, allocator), response.bodyLength());
        });
    }

    /** Asks a peer on another node to register the blocks with its NIC and READs each with {@code verbs}; on failure everything is released. */
    List<BlockBytes> fetchRdma(List<ShuffleBlockRef> blocks, BufferAllocator allocator, VerbsBlocks verbs)
            throws IOException
    {
        VerbsConnection connection = verbsConnection(verbs);
        boolean healthy = false;
        try {
            long requestId = nextRequestId++;
            List<BlockBytes> received = exchange(RdmaFetchRequest.of(requestId, blocks), blocks, (index, message) -> {
                RdmaBlockResponse response = expect(message, RdmaBlockResponse.class);
                checkOrder(requestId, index, response.requestId(), response.index());
                try {
                    return verbs.read(response, allocator, connection);
                }
                catch (IOException | RuntimeException e) {
                    throw new IOException("RDMA READ of " + blocks.get(index) + " from " + peer + " failed: " + e.getMessage(), e);
                }
            });
            healthy = true;
            return received;
        }
        finally {
            verbs.release(connection, healthy);
        }
    }

    /**
     * A verbs connection to the peer's NIC: a pooled one, or one the peer admits now. The admission
     * is asked for on this connection, between requests, so only an authenticated peer (with
     * spark.authenticate) hands out a token, and only over the encrypted stream (with crypto on).
     */
    private VerbsConnection verbsConnection(VerbsBlocks verbs)
            throws IOException
    {
        VerbsConnection connection;
        try {
            connection = verbs.connection(peerNic, readerNicHost -> {
                writer.write(new RdmaAdmissionRequest(readerNicHost));
                writer.flush();
                Message answer = reader.read();
                if (answer == null) {
                    throw new IOException("Connection to " + peer + " closed before it answered the RDMA admission request");
                }
                return expect(answer, RdmaAdmission.class);
            });
        }
        catch (IOException e) {
            throw new BlockFetchException(peer, Optional.empty(), "RDMA connection setup with " + peer + " failed: " + e.getMessage(), e);
        }
        peerNic = connection.peer();
        return connection;
    }

    /** Asks a same-node peer to publish the blocks in shared memory and copies each out with {@code shm}; on failure everything is released. */
    List<BlockBytes> fetchShm(List<ShuffleBlockRef> blocks, BufferAllocator allocator, ShmBlockReader shm)
            throws IOException
    {
        long requestId = nextRequestId++;
        return exchange(ShmFetchRequest.of(requestId, blocks), blocks, (index, message) -> {
            if (isEmptyBlock(message)) {
                return emptyBlock(requestId, index, (BlockResponse) message, allocator);
            }
            ShmBlockResponse response = expect(message, ShmBlockResponse.class);
            checkOrder(requestId, index, response.requestId(), response.index());
            return readShm(blocks.get(index), response.shmHandle(), allocator, shm);
        });
    }

    /**
     * Asks a same-node peer for GPU-resident blocks over CUDA IPC ({@code route}: NVLINK or
     * PCIE_P2P, by the GPUs' link) and copies each from the peer's GPU straight into host memory for
     * Spark's CPU decoder; a block the peer had spilled arrives through shared memory and is counted
     * on HOST_STAGED. {@code device} counts the IPC blocks; {@code counters} gets the staged ones;
     * {@code carried} gets each block's route. On failure everything received so far is released.
     */
    List<BlockBytes> fetchIpc(List<ShuffleBlockRef> blocks, BufferAllocator allocator, DeviceBlockReader device, Route route,
            ShmBlockReader staged, RouteCounters counters, List<String> carried)
            throws IOException
    {
        carried.clear();
        long requestId = nextRequestId++;
        return exchange(IpcFetchRequest.of(requestId, blocks), blocks, (index, message) -> {
            if (message instanceof IpcBlockResponse) {
                IpcBlockResponse response = (IpcBlockResponse) message;
                checkOrder(requestId, index, response.requestId(), response.index());
                BlockBytes block = copyDown(blocks.get(index), response.ipcHandle(), allocator, device, route);
                // A host read of the writer's GPU block is that GPU's D->H, not the pair's peer route: named and counted as such.
                return accounted(block, () -> carried.add(Route.PEER_GPU_D2H.name()));
            }
            BlockBytes block;
            if (isEmptyBlock(message)) {
                block = emptyBlock(requestId, index, (BlockResponse) message, allocator);
            }
            else {
                ShmBlockResponse response = expect(message, ShmBlockResponse.class);
                checkOrder(requestId, index, response.requestId(), response.index());
                block = readShm(blocks.get(index), response.shmHandle(), allocator, staged);
            }
            return accounted(block, () -> {
                counters.recordBlock(Route.HOST_STAGED, block.length());
                carried.add(Route.HOST_STAGED.name());
                DeviceRouteFallbacks.record(route, Route.HOST_STAGED, blocks.get(index), peer);
            });
        });
    }

    /**
     * The reduce side hands host batches to Spark's CPU operators, so the block is wanted in host
     * memory: one device-to-host copy straight out of the writer's exported GPU buffer, not a peer
     * copy into this executor's GPU followed by a second copy down (the block need not visit it).
     */
    private BlockBytes copyDown(ShuffleBlockRef block, IpcHandle handle, BufferAllocator allocator, DeviceBlockReader device, Route route)
            throws IOException
    {
        int length = Math.toIntExact(handle.length());
        if (length == 0) {
            return new BlockBytes(allocator.buffer(1), 0);
        }
        try {
            return new BlockBytes(device.landInHost(handle, allocator), length);
        }
        catch (RuntimeException e) {
            throw new IOException("Copying " + block + " from " + peer + " over " + route + ": " + e.getMessage(), e);
        }
    }

    /**
     * Asks another node's peer for GPU-resident blocks by GPUDirect RDMA and READs each straight out
     * of the peer's GPU memory into host memory here (Spark's reduce side decodes on the CPU, so the
     * block need not visit this executor's GPU); a block the peer had spilled is READ from its host
     * memory into ours and counted on RDMA_HOST_STAGED. Every block is counted
     * in {@code counters} and its route added to {@code carried}. On failure everything received so far is released.
     */
    List<BlockBytes> fetchGpuRdma(List<ShuffleBlockRef> blocks, BufferAllocator allocator, VerbsBlocks verbs, RouteCounters counters,
            List<String> carried)
            throws IOException
    {
        carried.clear();
        VerbsConnection connection = verbsConnection(verbs);
        boolean healthy = false;
        try {
            List<BlockBytes> received = exchangeGpuRdma(blocks, allocator, verbs, connection, counters, carried);
            healthy = true;
            return received;
        }
        finally {
            verbs.release(connection, healthy);
        }
    }

    private List<BlockBytes> exchangeGpuRdma(List<ShuffleBlockRef> blocks, BufferAllocator allocator, VerbsBlocks verbs, VerbsConnection connection,
            RouteCounters counters, List<String> carried)
            throws IOException
    {
        long requestId = nextRequestId++;
        return exchange(GpuRdmaFetchRequest.of(requestId, blocks), blocks, (index, message) -> {
            Route route;
            RdmaBlockResponse response;
            if (message instanceof GpuRdmaBlockResponse) {
                response = ((GpuRdmaBlockResponse) message).location();
                route = Route.GPUDIRECT_RDMA;
            }
            else if (message instanceof RdmaBlockResponse) {
                response = (RdmaBlockResponse) message;
                route = Route.RDMA_HOST_STAGED;
            }
            else {
                throw new IOException("Unexpected " + message.type() + " from " + peer);
            }
            checkOrder(requestId, index, response.requestId(), response.index());
            BlockBytes block;
            try {
                block = verbs.read(response, allocator, connection);
            }
            catch (IOException | RuntimeException e) {
                throw new IOException("RDMA READ (" + route + ") of " + blocks.get(index) + " from " + peer + " failed: " + e.getMessage(), e);
            }
            return accounted(block, () -> {
                counters.recordBlock(route, block.length());
                carried.add(route.name());
                if (route != Route.GPUDIRECT_RDMA) {
                    DeviceRouteFallbacks.record(Route.GPUDIRECT_RDMA, route, blocks.get(index), peer);
                }
            });
        });
    }

    /**
     * Runs the bookkeeping for a block just received; if it throws, the block is not yet in
     * {@link #exchange}'s list, so it is released here instead of leaking.
     */
    private static BlockBytes accounted(BlockBytes block, Runnable bookkeeping)
    {
        try {
            bookkeeping.run();
            return block;
        }
        catch (RuntimeException e) {
            block.close();
            throw e;
        }
    }

    /** An empty block on a shared-memory route comes in the stream (shared memory holds no empty files). */
    private static boolean isEmptyBlock(Message message)
    {
        return message instanceof BlockResponse && ((BlockResponse) message).bodyLength() == 0;
    }

    private BlockBytes emptyBlock(long requestId, int index, BlockResponse response, BufferAllocator allocator)
            throws IOException
    {
        checkOrder(requestId, index, response.requestId(), response.index());
        return new BlockBytes(reader.readBody(response, allocator), 0);
    }

    /** Receives one block of a request from its answer, or throws. */
    @FunctionalInterface
    private interface BlockReceiver
    {
        BlockBytes receive(int index, Message message)
                throws IOException;
    }

    /** Sends {@code request} and hands each of its answers, in order, to {@code receiver}; on any failure everything received so far is released. */
    private List<BlockBytes> exchange(Message request, List<ShuffleBlockRef> blocks, BlockReceiver receiver)
            throws IOException
    {
        writer.write(request);
        writer.flush();
        List<BlockBytes> received = new ArrayList<>(blocks.size());
        boolean success = false;
        try {
            for (int index = 0; index < blocks.size(); index++) {
                try {
                    received.add(receiver.receive(index, next(blocks, index)));
                }
                catch (BlockFetchException e) {
                    throw e;
                }
                catch (EOFException e) {
                    // The stream ended inside a frame: the peer died or the transfer was cut short.
                    throw new BlockFetchException(peer, Optional.of(blocks.get(index)), "Transfer of " + blocks.get(index) + " (block " + (index + 1) + " of "
                            + blocks.size() + ") from " + peer + " was cut short: " + e.getMessage(), e);
                }
                catch (IOException e) {
                    String block = blocks.get(index).toString();
                    String message = String.valueOf(e.getMessage());
                    throw new BlockFetchException(peer, Optional.of(blocks.get(index)),
                            message.contains(block) ? message : "Receiving " + block + " (block " + (index + 1) + " of " + blocks.size() + "): " + message, e);
                }
            }
            // Tell the server at once, so an idle pooled connection does not keep its blocks, files and registrations held.
            writer.write(new FetchDone());
            writer.flush();
            success = true;
            return received;
        }
        finally {
            if (!success) {
                received.forEach(BlockBytes::close);
            }
        }
    }

    private <T extends Message> T expect(Message message, Class<T> type)
            throws IOException
    {
        if (!type.isInstance(message)) {
            throw new IOException("Unexpected " + message.type() + " from " + peer);
        }
        return type.cast(message);
    }

    private Message next(List<ShuffleBlockRef> blocks, int index)
            throws IOException
    {
        Message message = reader.read();
        if (message == null) {
            throw new IOException("Connection to " + peer + " closed after " + index + " of " + blocks.size() + " blocks");
        }
        if (message instanceof FetchFailure) {
            FetchFailure failure = (FetchFailure) message;
            if (failure.index() < 0 || failure.index() >= blocks.size()) {
                throw new IOException(peer + " reported a failure for block " + failure.index() + " of a " + blocks.size() + "-block request: " + failure.message());
            }
            throw new BlockFetchException(peer, Optional.of(blocks.get(failure.index())), peer + " could not serve " + blocks.get(failure.index()) + ": " + failure.message(), null);
        }
        return message;
    }

    private void checkOrder(long requestId, int index, long responseRequestId, int responseIndex)
            throws IOException
    {
        if (responseRequestId != requestId || responseIndex != index) {
            throw new IOException("Out-of-order response from " + peer + ": request " + responseRequestId + " block " + responseIndex
                    + ", expected request " + requestId + " block " + index);
        }
    }

    private BlockBytes readShm(ShuffleBlockRef block, ShmBlockHandle handle, BufferAllocator allocator, ShmBlockReader shm)
            throws IOException
    {
        ArrowBuf body;
        try {
            // Mapped from the peer's file (or copied, for a small block); ours to release.
            body = shm.open(handle, allocator);
        }
        catch (RuntimeException e) {
            throw new IOException("Reading " + block + " from " + peer + " in shared memory: " + e.getMessage(), e);
        }
        return new BlockBytes(body, handle.length());
    }

    @Override
    public void close()
            throws IOException
    {
        socket.close();
    }
}
