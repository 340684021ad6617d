package dev.ferry.shuffle.transport.server;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.FetchedBlocks;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.auth.SparkAuthSettings;
import dev.ferry.shuffle.transport.auth.TcpAuth;
import dev.ferry.shuffle.transport.client.TcpShuffleTransport;
import dev.ferry.shuffle.transport.routing.BlockServers;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The block server's own limits: a connection cap, and one deadline for a peer's whole handshake. */
class TestServerLimits
{
    private static final ShuffleBlockRef BLOCK = new ShuffleBlockRef(1, 2, 3);

    private static TcpAuth auth(Duration timeout)
    {
        return new TcpAuth(new SparkAuthSettings(true, "app-1", Optional.of("secret")), timeout);
    }

    private static TcpBlockServer server(BufferAllocator allocator, TcpAuth auth, int maxConnections)
            throws Exception
    {
        return BlockServers.builder(ref -> {
            ArrowBuf buffer = allocator.buffer(4);
            buffer.setInt(0, 42);
            return Optional.of(new BlockBytes(buffer, 4));
        }).bind(InetAddress.getLoopbackAddress(), 0).maxFrameBytes(1 << 20).auth(auth).maxConnections(maxConnections).start();
    }

    /** Bytes read before the server closed the connection (-1 if it did not close within 10 s). */
    private static int readUntilClosed(Socket socket)
            throws Exception
    {
        socket.setSoTimeout(10_000);
        InputStream in = socket.getInputStream();
        int read = 0;
        try {
            while (in.read() >= 0) {
                read++;
            }
        }
        catch (SocketException reset) {
            // Closed with our bytes unread.
        }
        catch (java.net.SocketTimeoutException e) {
            return -1;
        }
        return read;
    }

    @Test
    void connectionsOverTheCapAreClosedAtOnceAndTheServerRecovers()
            throws Exception
    {
        try (BufferAllocator allocator = new RootAllocator(); TcpBlockServer server = server(allocator, auth(Duration.ofSeconds(30)), 2)) {
            List<Socket> idle = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                idle.add(new Socket(InetAddress.getLoopbackAddress(), server.port()));
            }
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (server.openConnections() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            try (Socket third = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
                assertEquals(0, readUntilClosed(third), "the connection over the cap is closed without an answer");
            }
            assertEquals(1, server.refusedConnections());
            for (Socket socket : idle) {
                socket.close();
            }
            while (server.openConnections() > 0 && System.nanoTime() < deadline + 10_000_000_000L) {
                Thread.sleep(10);
            }
            PeerAddress peer = new PeerAddress("1", InetAddress.getLoopbackAddress().getHostAddress(), server.port());
            try (TcpShuffleTransport reader = new TcpShuffleTransport(5000, 1 << 20, auth(Duration.ofSeconds(5)));
                    FetchedBlocks fetched = reader.fetch(peer, List.of(BLOCK), allocator)) {
                assertEquals(42, fetched.blocks().get(0).buffer().getInt(0));
            }
        }
    }

    @Test
    void aPeerDrippingItsHandshakeIsCutOffAtTheDeadline()
            throws Exception
    {
        try (BufferAllocator allocator = new RootAllocator(); TcpBlockServer server = server(allocator, auth(Duration.ofMillis(1500)), 8);
                Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            long start = System.nanoTime();
            // A hello frame's header, then one byte every 400 ms: each read is quick, the handshake never ends.
            socket.getOutputStream().write(new byte[] {0, 0, 0, 100, 12});
            Thread dripper = new Thread(() -> {
                try {
                    for (int i = 0; i < 50; i++) {
                        Thread.sleep(400);
                        socket.getOutputStream().write(0);
                    }
                }
                catch (Exception closed) {
                    // The server cut us off.
                }
            });
            dripper.setDaemon(true);
            dripper.start();
            assertEquals(0, readUntilClosed(socket));
            long seconds = (System.nanoTime() - start) / 1_000_000_000L;
            assertTrue(seconds < 8, "cut off after " + seconds + " s, not at the 1.5 s deadline");
            assertEquals(0, server.blocksOpened());
        }
    }
}
