package dev.ferry.shuffle.transport.tcp;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.BlockServer;
import dev.ferry.shuffle.transport.BlockSource;
import dev.ferry.shuffle.transport.tcp.protocol.BlockResponse;
import dev.ferry.shuffle.transport.tcp.protocol.FetchFailure;
import dev.ferry.shuffle.transport.tcp.protocol.FetchRequest;
import dev.ferry.shuffle.transport.tcp.protocol.FrameReader;
import dev.ferry.shuffle.transport.tcp.protocol.FrameWriter;
import dev.ferry.shuffle.transport.tcp.protocol.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * Serves an executor's blocks over plain TCP: one thread accepts, one thread per connection reads
 * requests and streams each block from memory as it is. A block that cannot be served gets a
 * {@link FetchFailure} and the connection stays usable; a malformed frame closes the connection.
 */
public final class TcpBlockServer
        implements BlockServer
{
    private static final Logger LOG = LoggerFactory.getLogger(TcpBlockServer.class);

    private final BlockSource source;
    private final long maxFrameBytes;
    private final ServerSocket serverSocket;
    private final ExecutorService threads;
    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /** Binds at once ({@code port} 0: any free port) on {@code bindAddress}, null meaning every interface. */
    public TcpBlockServer(BlockSource source, InetAddress bindAddress, int port, long maxFrameBytes)
            throws IOException
    {
        this.source = requireNonNull(source, "source is null");
        this.maxFrameBytes = maxFrameBytes;
        AtomicInteger counter = new AtomicInteger();
        this.threads = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "ferry-tcp-block-server-" + counter.incrementAndGet());
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
            throw e;
        }
        this.serverSocket = socket;
        threads.execute(this::acceptLoop);
    }

    @Override
    public int port()
    {
        return serverSocket.getLocalPort();
    }

    private void acceptLoop()
    {
        while (!closed) {
            try {
                Socket socket = serverSocket.accept();
                socket.setTcpNoDelay(true);
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
        try (socket) {
            FrameReader reader = new FrameReader(new BufferedInputStream(socket.getInputStream(), 64 * 1024), maxFrameBytes);
            FrameWriter writer = new FrameWriter(new BufferedOutputStream(socket.getOutputStream(), 64 * 1024));
            while (!closed) {
                Message message = reader.read();
                if (message == null) {
                    return;
                }
                if (!(message instanceof FetchRequest)) {
                    throw new IOException("Expected a fetch request, got " + message.type());
                }
                answer((FetchRequest) message, writer);
                writer.flush();
            }
        }
        catch (SocketException e) {
            // The peer went away (task killed, executor lost); nothing to answer.
            LOG.debug("Ferry TCP connection closed: {}", e.getMessage());
        }
        catch (IOException | RuntimeException e) {
            if (!closed) {
                LOG.warn("Ferry TCP connection from {} failed: {}", socket.getRemoteSocketAddress(), e.toString());
            }
        }
        finally {
            connections.remove(socket);
        }
    }

    private void answer(FetchRequest request, FrameWriter writer)
            throws IOException
    {
        for (int index = 0; index < request.blocks().size(); index++) {
            Optional<BlockBytes> block;
            try {
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
        try {
            threads.awaitTermination(10, TimeUnit.SECONDS);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
