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
        this.peer = requireNonNull(peer, "peer is null");
        Socket connected = new Socket();
        try {
            connected.setTcpNoDelay(true);
            connected.setSoTimeout(timeoutMillis);
            connected.connect(new InetSocketAddress(peer.host(), peer.port()), timeoutMillis);
            this.reader = new FrameReader(new BufferedInputStream(connected.getInputStream(), 64 * 1024), maxFrameBytes);
            this.writer = new FrameWriter(new BufferedOutputStream(connected.getOutputStream(), 64 * 1024));
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

    @Override
    public void close()
            throws IOException
    {
        socket.close();
    }
}
