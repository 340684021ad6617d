package dev.ferry.shuffle.transport.client;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.BlockSource;
import dev.ferry.shuffle.transport.FetchedBlocks;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.routing.BlockServers;
import dev.ferry.shuffle.transport.server.TcpBlockServer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The TCP transport against a real server on an ephemeral loopback port, and against peers that misbehave. */
class TestTcpTransport
{
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    private BufferAllocator allocator;
    private final Map<ShuffleBlockRef, byte[]> blocks = new ConcurrentHashMap<>();

    @BeforeEach
    void setUp()
    {
        allocator = new RootAllocator();
    }

    @AfterEach
    void tearDown()
    {
        assertEquals(0, allocator.getAllocatedMemory(), "every fetched or served buffer was released");
        allocator.close();
    }

    private BlockSource source()
    {
        return ref -> {
            byte[] bytes = blocks.get(ref);
            if (bytes == null) {
                return Optional.empty();
            }
            ArrowBuf buffer = allocator.buffer(Math.max(bytes.length, 1));
            buffer.setBytes(0, bytes);
            return Optional.of(new BlockBytes(buffer, bytes.length));
        };
    }

    private static byte[] pattern(int length, int seed)
    {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (i * 7 + seed);
        }
        return bytes;
    }

    @Test
    void fetchesBlocksInOrderOverLoopback()
            throws Exception
    {
        ShuffleBlockRef small = new ShuffleBlockRef(1, 10, 0);
        ShuffleBlockRef empty = new ShuffleBlockRef(1, 10, 1);
        ShuffleBlockRef large = new ShuffleBlockRef(1, 11, 0);
        blocks.put(small, pattern(100, 1));
        blocks.put(empty, new byte[0]);
        blocks.put(large, pattern(3 << 20, 2));
        try (TcpBlockServer server = BlockServers.builder(source()).bind(LOOPBACK, 0).maxFrameBytes(16 << 20).start();
                TcpShuffleTransport transport = new TcpShuffleTransport(10_000, 16 << 20)) {
            PeerAddress peer = new PeerAddress("1", LOOPBACK.getHostAddress(), server.port());
            for (int round = 0; round < 2; round++) {
                // The second round reuses the pooled connection.
                try (FetchedBlocks fetched = transport.fetch(peer, List.of(large, small, empty), allocator)) {
                    assertEquals("TCP", fetched.route());
                    assertBlock(blocks.get(large), fetched.blocks().get(0));
                    assertBlock(blocks.get(small), fetched.blocks().get(1));
                    assertBlock(blocks.get(empty), fetched.blocks().get(2));
                }
            }
        }
    }

    @Test
    void concurrentReducersShareOneServer()
            throws Exception
    {
        for (int map = 0; map < 8; map++) {
            blocks.put(new ShuffleBlockRef(2, map, 0), pattern(10_000 + map, map));
        }
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try (TcpBlockServer server = BlockServers.builder(source()).bind(LOOPBACK, 0).maxFrameBytes(16 << 20).start();
                TcpShuffleTransport transport = new TcpShuffleTransport(10_000, 16 << 20)) {
            PeerAddress peer = new PeerAddress("2", LOOPBACK.getHostAddress(), server.port());
            List<Future<?>> futures = new ArrayList<>();
            for (int task = 0; task < 16; task++) {
                int map = task % 8;
                futures.add(threads.submit(() -> {
                    ShuffleBlockRef ref = new ShuffleBlockRef(2, map, 0);
                    try (FetchedBlocks fetched = transport.fetch(peer, List.of(ref), allocator)) {
                        assertBlock(blocks.get(ref), fetched.blocks().get(0));
                    }
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get(60, TimeUnit.SECONDS);
            }
        }
        finally {
            threads.shutdownNow();
        }
    }

    @Test
    void aMissingBlockFailsTheFetchAndKeepsTheServerUsable()
            throws Exception
    {
        ShuffleBlockRef present = new ShuffleBlockRef(3, 1, 0);
        blocks.put(present, pattern(50, 3));
        try (TcpBlockServer server = BlockServers.builder(source()).bind(LOOPBACK, 0).maxFrameBytes(16 << 20).start();
                TcpShuffleTransport transport = new TcpShuffleTransport(10_000, 16 << 20)) {
            PeerAddress peer = new PeerAddress("3", LOOPBACK.getHostAddress(), server.port());
            IOException failure = assertThrows(IOException.class, () -> transport.fetch(peer, List.of(present, new ShuffleBlockRef(3, 99, 0)), allocator));
            assertTrue(failure.getMessage().contains("shuffle_3_99_0"), failure.getMessage());
            try (FetchedBlocks fetched = transport.fetch(peer, List.of(present), allocator)) {
                assertBlock(blocks.get(present), fetched.blocks().get(0));
            }
        }
    }

    @Test
    void aPeerThatDisconnectsMidBlockFailsTheFetch()
            throws Exception
    {
        IOException failure = fetchFromFakePeer(out -> {
            try {
                out.writeInt(1 + 20 + 1000);
                out.writeByte(2);
                out.writeLong(0);
                out.writeInt(0);
                out.writeLong(1000);
                out.write(new byte[300]);
            }
            catch (IOException e) {
                throw new AssertionError(e);
            }
        });
        assertTrue(failure.getMessage().contains("executor fake"), failure.getMessage());
    }

    @Test
    void aPeerThatClosesWithoutAnsweringFailsTheFetch()
            throws Exception
    {
        IOException failure = fetchFromFakePeer(out -> {});
        assertTrue(failure.getMessage().contains("closed"), failure.getMessage());
    }

    @Test
    void aPeerThatSendsAnOversizedFrameIsRejected()
            throws Exception
    {
        IOException failure = fetchFromFakePeer(out -> {
            try {
                out.writeInt(Integer.MAX_VALUE);
                out.writeByte(2);
            }
            catch (IOException e) {
                throw new AssertionError(e);
            }
        });
        assertTrue(failure.getMessage().contains("BLOCK_RESPONSE frame length 2147483647 exceeds its limit"), failure.getMessage());
    }

    @Test
    void aPeerThatIsNotListeningFailsTheFetch()
            throws IOException
    {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, LOOPBACK)) {
            port = socket.getLocalPort();
        }
        try (TcpShuffleTransport transport = new TcpShuffleTransport(2_000, 1 << 20)) {
            PeerAddress peer = new PeerAddress("gone", LOOPBACK.getHostAddress(), port);
            IOException failure = assertThrows(IOException.class, () -> transport.fetch(peer, List.of(new ShuffleBlockRef(1, 1, 1)), allocator));
            assertTrue(failure.getMessage().contains("Cannot connect"), failure.getMessage());
        }
    }

    /** A peer that reads the request, answers with whatever {@code answer} writes, then hangs up. */
    private IOException fetchFromFakePeer(Consumer<DataOutputStream> answer)
            throws Exception
    {
        try (ServerSocket fake = new ServerSocket(0, 1, LOOPBACK);
                TcpShuffleTransport transport = new TcpShuffleTransport(10_000, 1 << 20)) {
            Thread peerThread = new Thread(() -> {
                try (Socket socket = fake.accept()) {
                    InputStream in = socket.getInputStream();
                    byte[] request = new byte[4 + 1 + 16 + 12];
                    new java.io.DataInputStream(in).readFully(request);
                    DataOutputStream out = new DataOutputStream(socket.getOutputStream());
                    answer.accept(out);
                    out.flush();
                }
                catch (IOException e) {
                    throw new AssertionError(e);
                }
            });
            peerThread.start();
            PeerAddress peer = new PeerAddress("fake", LOOPBACK.getHostAddress(), fake.getLocalPort());
            IOException failure = assertThrows(IOException.class, () -> transport.fetch(peer, List.of(new ShuffleBlockRef(1, 1, 1)), allocator));
            peerThread.join(10_000);
            return failure;
        }
    }

    private static void assertBlock(byte[] expected, BlockBytes actual)
    {
        assertEquals(expected.length, actual.length());
        byte[] copy = new byte[expected.length];
        actual.buffer().getBytes(0, copy);
        assertArrayEquals(expected, copy);
    }
}
