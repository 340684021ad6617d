package dev.ferry.shuffle.transport.tcp;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.tcp.protocol.BlockResponse;
import dev.ferry.shuffle.transport.tcp.protocol.FetchFailure;
import dev.ferry.shuffle.transport.tcp.protocol.FetchRequest;
import dev.ferry.shuffle.transport.tcp.protocol.FrameReader;
import dev.ferry.shuffle.transport.tcp.protocol.FrameWriter;
import dev.ferry.shuffle.transport.tcp.protocol.Message;
import dev.ferry.shuffle.transport.tcp.protocol.RdmaBlockResponse;
import dev.ferry.shuffle.transport.tcp.protocol.RdmaFetchRequest;
import dev.ferry.shuffle.transport.tcp.protocol.ShmBlockResponse;
import dev.ferry.shuffle.transport.tcp.protocol.ShmFetchRequest;
import dev.ferry.transport.auth.AuthBootstrap;
import dev.ferry.transport.local.ShmBlockHandle;
import dev.ferry.transport.local.ShmBlockReader;
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

    TcpConnection(PeerAddress peer, int timeoutMillis, long maxFrameBytes)
            throws IOException
    {
        this(peer, timeoutMillis, maxFrameBytes, TcpAuth.none());
    }

    /** Connects and, with {@code auth} enabled, proves Spark's shared secret before anything else is sent. */
    TcpConnection(PeerAddress peer, int timeoutMillis, long maxFrameBytes, TcpAuth auth)
            throws IOException
    {
        this.peer = requireNonNull(peer, "peer is null");
        Socket connected = new Socket();
        try {
            connected.setTcpNoDelay(true);
            connected.setSoTimeout(timeoutMillis);
            connected.connect(new InetSocketAddress(peer.host(), peer.port()), timeoutMillis);
            BufferedInputStream in = new BufferedInputStream(connected.getInputStream(), 64 * 1024);
            BufferedOutputStream out = new BufferedOutputStream(connected.getOutputStream(), 64 * 1024);
            if (auth.enabled()) {
                AuthBootstrap.authenticateClient(new StreamMessageChannel(connected, in, out, maxFrameBytes), auth.settings(), auth.timeout());
            }
            this.reader = new FrameReader(in, maxFrameBytes);
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
        writer.write(FetchRequest.of(requestId, blocks));
        writer.flush();
        List<BlockBytes> received = new ArrayList<>(blocks.size());
        boolean success = false;
        try {
            for (int index = 0; index < blocks.size(); index++) {
                Message message = reader.read();
                if (message == null) {
                    throw new IOException("Connection to " + peer + " closed after " + index + " of " + blocks.size() + " blocks");
                }
                if (message instanceof FetchFailure) {
                    FetchFailure failure = (FetchFailure) message;
                    throw new IOException(peer + " could not serve " + blocks.get(failure.index()) + ": " + failure.message());
                }
                if (!(message instanceof BlockResponse)) {
                    throw new IOException("Unexpected " + message.type() + " from " + peer);
                }
                BlockResponse response = (BlockResponse) message;
                if (response.requestId() != requestId || response.index() != index) {
                    throw new IOException("Out-of-order response from " + peer + ": request " + response.requestId() + " block " + response.index()
                            + ", expected request " + requestId + " block " + index);
                }
                received.add(new BlockBytes(reader.readBody(response, allocator), response.bodyLength()));
            }
            success = true;
            return received;
        }
        finally {
            if (!success) {
                received.forEach(BlockBytes::close);
            }
        }
    }

    /** Asks a peer on another node to register the blocks with its NIC and READs each with {@code verbs}; on failure everything is released. */
    List<BlockBytes> fetchRdma(List<ShuffleBlockRef> blocks, BufferAllocator allocator, VerbsBlocks verbs)
            throws IOException
    {
        long requestId = nextRequestId++;
        writer.write(RdmaFetchRequest.of(requestId, blocks));
        writer.flush();
        List<BlockBytes> received = new ArrayList<>(blocks.size());
        boolean success = false;
        try {
            for (int index = 0; index < blocks.size(); index++) {
                Message message = reader.read();
                if (message == null) {
                    throw new IOException("Connection to " + peer + " closed after " + index + " of " + blocks.size() + " blocks");
                }
                if (message instanceof FetchFailure) {
                    FetchFailure failure = (FetchFailure) message;
                    throw new IOException(peer + " could not serve " + blocks.get(failure.index()) + ": " + failure.message());
                }
                if (!(message instanceof RdmaBlockResponse)) {
                    throw new IOException("Unexpected " + message.type() + " from " + peer);
                }
                RdmaBlockResponse response = (RdmaBlockResponse) message;
                if (response.requestId() != requestId || response.index() != index) {
                    throw new IOException("Out-of-order response from " + peer + ": request " + response.requestId() + " block " + response.index()
                            + ", expected request " + requestId + " block " + index);
                }
                try {
                    received.add(verbs.read(response, allocator));
                }
                catch (IOException | RuntimeException e) {
                    throw new IOException("RDMA READ of " + blocks.get(index) + " from " + peer + " failed: " + e.getMessage(), e);
                }
            }
            success = true;
            return received;
        }
        finally {
            if (!success) {
                received.forEach(BlockBytes::close);
            }
        }
    }

    /** Asks a same-node peer to publish the blocks in shared memory and copies each out with {@code shm}; on failure everything is released. */
    List<BlockBytes> fetchShm(List<ShuffleBlockRef> blocks, BufferAllocator allocator, ShmBlockReader shm)
            throws IOException
    {
        long requestId = nextRequestId++;
        writer.write(ShmFetchRequest.of(requestId, blocks));
        writer.flush();
        List<BlockBytes> received = new ArrayList<>(blocks.size());
        boolean success = false;
        try {
            for (int index = 0; index < blocks.size(); index++) {
                Message message = reader.read();
                if (message == null) {
                    throw new IOException("Connection to " + peer + " closed after " + index + " of " + blocks.size() + " blocks");
                }
                if (message instanceof FetchFailure) {
                    FetchFailure failure = (FetchFailure) message;
                    throw new IOException(peer + " could not serve " + blocks.get(failure.index()) + ": " + failure.message());
                }
                if (!(message instanceof ShmBlockResponse)) {
                    throw new IOException("Unexpected " + message.type() + " from " + peer);
                }
                ShmBlockResponse response = (ShmBlockResponse) message;
                if (response.requestId() != requestId || response.index() != index) {
                    throw new IOException("Out-of-order response from " + peer + ": request " + response.requestId() + " block " + response.index()
                            + ", expected request " + requestId + " block " + index);
                }
                ShmBlockHandle handle = response.shmHandle();
                ArrowBuf body = allocator.buffer(Math.max(handle.length(), 1));
                try {
                    shm.read(handle, body.nioBuffer(0, Math.toIntExact(handle.length())));
                }
                catch (RuntimeException e) {
                    body.close();
                    throw new IOException("Reading " + blocks.get(index) + " from " + peer + " in shared memory: " + e.getMessage(), e);
                }
                received.add(new BlockBytes(body, handle.length()));
            }
            success = true;
            return received;
        }
        finally {
            if (!success) {
                received.forEach(BlockBytes::close);
            }
        }
    }

    @Override
    public void close()
            throws IOException
    {
        socket.close();
    }
}
