package dev.ferry.shuffle.transport.client;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.BlockSource;
import dev.ferry.shuffle.transport.FetchedBlocks;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.auth.TcpAuth;
import dev.ferry.shuffle.transport.routing.BlockServers;
import dev.ferry.shuffle.transport.server.TcpBlockServer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Connection retries, the per-peer bound on fetches in flight, and closing a departed peer's connections. */
class TestFetchLimits
{
    private static final ShuffleBlockRef BLOCK = new ShuffleBlockRef(1, 2, 3);
    private BufferAllocator allocator;

    @BeforeEach
    void setUp()
    {
        allocator = new RootAllocator();
    }

    @AfterEach
    void tearDown()
    {
        assertEquals(0, allocator.getAllocatedMemory());
        allocator.close();
    }

    private BlockSource source()
    {
        return ref -> {
            ArrowBuf buffer = allocator.buffer(100_000);
            return Optional.of(new BlockBytes(buffer, 100_000));
        };
    }

    @Test
    void limitsComeFromTheTransportKeys()
    {
        assertEquals(FetchLimits.defaults(), FetchLimits.from(MapConfigSource.empty()));
        FetchLimits custom = FetchLimits.from(new MapConfigSource(Map.of("spark.ferry.transport.connect.maxRetries", "5",
                "spark.ferry.transport.connect.retryWaitMillis", "10", "spark.ferry.transport.maxConnectionsPerPeer", "2")));
        assertEquals(new FetchLimits(5, Duration.ofMillis(10), 2), custom);
        assertEquals(Duration.ofMillis(40), custom.retryWait(3), "the wait doubles per retry");
        assertThrows(IllegalArgumentException.class, () -> FetchLimits.from(new MapConfigSource(Map.of("spark.ferry.transport.maxConnectionsPerPeer", "0"))));
    }

    @Test
    void aRefusedConnectIsRetriedThenFailsNamingThePeer()
            throws IOException
    {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        // Nothing listens on the port any more: every attempt is refused.
        PeerAddress peer = new PeerAddress("9", "127.0.0.1", port);
        long retriesBefore = TcpShuffleTransport.connectRetries();
        try (TcpShuffleTransport transport = new TcpShuffleTransport(5_000, 1 << 20, TcpAuth.none(), new FetchLimits(2, Duration.ofMillis(1), 4))) {
            IOException refused = assertThrows(IOException.class, () -> transport.fetch(peer, List.of(BLOCK), allocator));
            assertTrue(refused.getMessage().contains("after 3 attempts") && refused.getMessage().contains(peer.toString()), refused.getMessage());
        }
        assertTrue(TcpShuffleTransport.connectRetries() >= retriesBefore + 2, "both retries were counted");
    }

    @Test
    void oneConnectionPerPeerSerializesConcurrentFetchesOverOneConnection()
            throws Exception
    {
        try (TcpBlockServer server = BlockServers.builder(source()).bind(InetAddress.getLoopbackAddress(), 0).maxFrameBytes(1 << 20).start();
                TcpShuffleTransport transport = new TcpShuffleTransport(10_000, 1 << 20, TcpAuth.none(), new FetchLimits(0, Duration.ZERO, 1))) {
            PeerAddress peer = new PeerAddress("1", "127.0.0.1", server.port());
            ExecutorService threads = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> futures = new ArrayList<>();
                for (int i = 0; i < 16; i++) {
                    futures.add(threads.submit(() -> {
                        try (FetchedBlocks fetched = transport.fetch(peer, List.of(BLOCK, BLOCK), allocator)) {
                            assertEquals(2, fetched.blocks().size());
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
            assertEquals(1, transport.connectionsOpened(), "at most one fetch in flight to the peer, so one connection served all");
            assertEquals(1, server.acceptedConnections());

            assertEquals(1, transport.idleConnections());
            assertEquals(0, transport.closeConnectionsTo("2"), "another executor's connections are left alone");
            assertEquals(1, transport.closeConnectionsTo("1"), "the departed executor's pooled connection is closed");
            assertEquals(0, transport.idleConnections());
        }
    }
}
