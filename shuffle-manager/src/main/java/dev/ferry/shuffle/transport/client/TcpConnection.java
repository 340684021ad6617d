package dev.ferry.shuffle.transport.client;

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

import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.BlockFetchException;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.auth.AuthBootstrap;
import dev.ferry.shuffle.transport.auth.StreamAuthChannel;
import dev.ferry.shuffle.transport.auth.TcpAuth;
import dev.ferry.shuffle.transport.crypto.GcmInputStream;
import dev.ferry.shuffle.transport.crypto.GcmOutputStream;
import dev.ferry.shuffle.transport.crypto.SessionKeys;
import dev.ferry.shuffle.transport.wire.BlockLocation;
import dev.ferry.shuffle.transport.wire.BlockResponse;
import dev.ferry.shuffle.transport.wire.FetchDone;
import dev.ferry.shuffle.transport.wire.FetchFailure;
import dev.ferry.shuffle.transport.wire.FetchRequest;
import dev.ferry.shuffle.transport.wire.FetchRoute;
import dev.ferry.shuffle.transport.wire.FrameReader;
import dev.ferry.shuffle.transport.wire.FrameWriter;
import dev.ferry.shuffle.transport.wire.Message;
import dev.ferry.shuffle.transport.wire.MessageType;
import org.apache.arrow.memory.BufferAllocator;

import static java.util.Objects.requireNonNull;

/**
 * One client connection to a peer's block server; one request at a time (callers synchronize on
 * it). It sends a route's {@link FetchRequest} and hands each block's answer, checked to be the
 * next in order, to the route's client handler ({@link BlockReceiver}); the handlers live in the
 * route packages ({@code shm}, {@code ipc}, {@code rdma}, {@code gpurdma}), the inline answer here.
 */
public final class TcpConnection
        implements AutoCloseable
{
    private final PeerAddress peer;
    private final Socket socket;
    private final FrameReader reader;
    private final FrameWriter writer;
    private long nextRequestId;
    // The peer's NIC listener, once it admitted a queue pair of ours: where to look for a pooled connection next time.
    private InetSocketAddress peerNic;

    public TcpConnection(PeerAddress peer, int timeoutMillis, long maxFrameBytes)
            throws IOException
    {
        this(peer, timeoutMillis, maxFrameBytes, TcpAuth.none());
    }

    /** Connects and, with {@code auth} enabled, proves Spark's shared secret before anything else is sent (and encrypts what follows where {@code auth} says). */
    public TcpConnection(PeerAddress peer, int timeoutMillis, long maxFrameBytes, TcpAuth auth)
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

    public PeerAddress peer()
    {
        return peer;
    }

    /** The peer's NIC listener once it admitted a queue pair of ours (where to look for a pooled verbs connection), if any. */
    public InetSocketAddress peerNic()
    {
        return peerNic;
    }

    public void peerNic(InetSocketAddress listener)
    {
        this.peerNic = listener;
    }

    /** Fetches the blocks with their bytes in the stream (the INLINE route); on any failure everything received so far is released. */
    public List<BlockBytes> fetchInline(List<ShuffleBlockRef> blocks, BufferAllocator allocator)
            throws IOException
    {
        return exchange(FetchRoute.INLINE, blocks, (index, message) -> readInline(expect(message, BlockResponse.class), allocator));
    }

    /** The body of a block answered in the stream: every route answers an empty block so (shared memory holds no empty files). */
    public BlockBytes readInline(BlockResponse response, BufferAllocator allocator)
            throws IOException
    {
        return new BlockBytes(reader.readBody(response, allocator), response.bodyLength());
    }

    /** Sends {@code request} between fetches (an RDMA admission) and returns the peer's one answer. */
    public Message call(Message request)
            throws IOException
    {
        writer.write(request);
        writer.flush();
        Message answer = reader.read();
        if (answer == null) {
            throw new IOException("Connection to " + peer + " closed before it answered " + request.type());
        }
        return answer;
    }

    /**
     * Runs the bookkeeping for a block just received; if it throws, the block is not yet in
     * {@link #exchange}'s list, so it is released here instead of leaking.
     */
    public static BlockBytes accounted(BlockBytes block, Runnable bookkeeping)
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

    /** A route's client handler: receives one block of a request from its answer (already checked to be that block's), or throws. */
    @FunctionalInterface
    public interface BlockReceiver
    {
        BlockBytes receive(int index, Message message)
                throws IOException;
    }

    /**
     * Sends a fetch request for {@code blocks} on {@code route} and hands each block's answer, in
     * order, to {@code receiver}; on any failure everything received so far is released.
     */
    public List<BlockBytes> exchange(FetchRoute route, List<ShuffleBlockRef> blocks, BlockReceiver receiver)
            throws IOException
    {
        FetchRequest request = FetchRequest.of(nextRequestId++, route, blocks);
        writer.write(request);
        writer.flush();
        List<BlockBytes> received = new ArrayList<>(blocks.size());
        boolean success = false;
        try {
            for (int index = 0; index < blocks.size(); index++) {
                try {
                    received.add(receiver.receive(index, next(request, blocks, index)));
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

    public <T extends Message> T expect(Message message, Class<T> type)
            throws IOException
    {
        if (!type.isInstance(message)) {
            throw new IOException("Unexpected " + message.type() + " from " + peer);
        }
        return type.cast(message);
    }

    private Message next(FetchRequest request, List<ShuffleBlockRef> blocks, int index)
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
        if (message instanceof BlockResponse response) {
            checkOrder(request.requestId(), index, response.requestId(), response.index());
        }
        else if (message instanceof BlockLocation location) {
            checkOrder(request.requestId(), index, location.requestId(), location.index());
        }
        else {
            throw new IOException("Unexpected " + message.type() + " from " + peer + " in answer to a " + request.route() + " fetch");
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

    @Override
    public void close()
            throws IOException
    {
        socket.close();
    }
}
