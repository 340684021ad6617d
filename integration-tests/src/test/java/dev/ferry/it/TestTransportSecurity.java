package dev.ferry.it;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import dev.ferry.shuffle.PeerEndpoints;
import dev.ferry.shuffle.transport.FetchedBlocks;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.auth.TcpAuth;
import dev.ferry.shuffle.transport.client.TcpShuffleTransport;
import dev.ferry.shuffle.transport.auth.SparkAuthSettings;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.MapOutputTracker;
import org.apache.spark.SparkEnv;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.BlockManagerId;
import org.apache.spark.storage.ShuffleBlockId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import scala.Tuple2;
import scala.Tuple3;
import scala.jdk.javaapi.CollectionConverters;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two executor JVMs with {@code spark.authenticate} and {@code spark.network.crypto.enabled}: Ferry's
 * exchange still agrees with Spark; a stranger on 127.0.0.1 with a wrong or no secret, or with
 * hostile frames (a 700 MiB handshake frame, a request before authentication), is served nothing
 * and kills no executor; and the bytes of a real block fetched with the right secret through a
 * capturing relay hold no plaintext of a marker string the block itself carries.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestTransportSecurity
{
    private static final String SECRET = "ferry-it-secret-0123456789";
    private static final String MARKER = "FERRY-MARKER-7f3a9c";
    private SparkSession spark;

    @BeforeAll
    void start()
            throws InterruptedException
    {
        spark = FerrySessions.localCluster(Map.of(
                "spark.authenticate", "true",
                "spark.authenticate.secret", SECRET,
                "spark.network.crypto.enabled", "true",
                // Uncompressed blocks: the marker is in a block's plaintext, so its absence on the wire is the cipher's doing.
                "spark.ferry.shuffle.compression.codec", "none"));
        spark.range(0, 20_000).selectExpr("id", "id % 7 AS k", "concat('" + MARKER + "-', id) AS s").createOrReplaceTempView("marked");
    }

    @AfterAll
    void stop()
    {
        if (spark != null) {
            spark.stop();
        }
    }

    @Test
    void encryptedAuthenticatedShuffleAgreesAndStrangersGetNothing()
            throws Exception
    {
        String query = "SELECT k, count(*), max(s), sum(id) FROM marked GROUP BY k";
        QueryComparison.assertSameAsSpark(spark, query, false);
        // A shuffle whose blocks carry the marker, then one of its blocks on another executor.
        QueryComparison.assertSameAsSpark(spark, "SELECT id, s FROM marked DISTRIBUTE BY id", false);
        List<Block> blocks = blocksOfLatestShuffle();
        assertFalse(blocks.isEmpty(), "map outputs of the last shuffle");
        Block block = blocks.stream().filter(candidate -> candidate.size() > 1000).findFirst().orElseThrow();

        try (BufferAllocator allocator = new RootAllocator()) {
            // Strangers: a wrong secret, no secret.
            for (TcpAuth auth : List.of(auth("not-the-secret"), TcpAuth.none())) {
                try (TcpShuffleTransport stranger = new TcpShuffleTransport(10_000, 64 << 20, auth)) {
                    assertThrows(java.io.IOException.class, () -> stranger.fetch(block.peer(), List.of(block.ref()), allocator));
                }
            }
            // Hostile first bytes: answered with nothing.
            for (byte[] hostile : List.of(frame(700 << 20, 12), frame(-1, 12), request(block.ref()))) {
                assertEquals(0, answeredBytes(block.peer(), hostile), "an executor answered hostile bytes");
            }
            // The right secret, through a relay that records what the sockets carry.
            try (CapturingRelay relay = new CapturingRelay(block.peer());
                    TcpShuffleTransport friend = new TcpShuffleTransport(10_000, 64 << 20, auth(SECRET));
                    FetchedBlocks fetched = friend.fetch(new PeerAddress(block.peer().executorId(), "127.0.0.1", relay.port()), List.of(block.ref()), allocator)) {
                byte[] plaintext = new byte[Math.toIntExact(fetched.blocks().get(0).length())];
                fetched.blocks().get(0).buffer().getBytes(0, plaintext);
                assertTrue(new String(plaintext, StandardCharsets.ISO_8859_1).contains(MARKER), "the block itself carries the marker");
                byte[] wire = relay.captured();
                assertTrue(wire.length > plaintext.length, "the block crossed the relay");
                assertFalse(new String(wire, StandardCharsets.ISO_8859_1).contains(MARKER), "plaintext of the marker on the wire");
            }
        }
        assertEquals(3, spark.sparkContext().statusTracker().getExecutorInfos().length, "both executors are alive");
        // Five refused strangers from one host: one line in the executors' logs.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        long lines = handshakeFailureLines();
        while (lines < 1 && System.nanoTime() < deadline) {
            Thread.sleep(200);
            lines = handshakeFailureLines();
        }
        assertEquals(1, lines, "one log line for the refused peer");
        QueryComparison.assertSameAsSpark(spark, query, false);
    }

    /** Lines of HandshakeFailures in this application's executor logs (local-cluster writes them under SPARK_HOME/work). */
    private long handshakeFailureLines()
            throws java.io.IOException
    {
        java.nio.file.Path work = java.nio.file.Path.of(System.getenv("SPARK_HOME"), "work", spark.sparkContext().applicationId());
        long lines = 0;
        try (var executors = java.nio.file.Files.list(work)) {
            for (java.nio.file.Path stderr : executors.map(executor -> executor.resolve("stderr")).filter(java.nio.file.Files::exists).toList()) {
                try (var log = java.nio.file.Files.lines(stderr, StandardCharsets.ISO_8859_1)) {
                    lines += log.filter(line -> line.contains("HandshakeFailures")).count();
                }
            }
        }
        return lines;
    }

    private TcpAuth auth(String secret)
    {
        return new TcpAuth(new SparkAuthSettings(true, spark.sparkContext().applicationId(), Optional.of(secret)), Duration.ofSeconds(10), true);
    }

    private record Block(PeerAddress peer, ShuffleBlockRef ref, long size)
    {
    }

    /** Map outputs of the newest shuffle the driver tracks (of spark.sql.shuffle.partitions=8), with the executor (and Ferry port) holding each. */
    private static List<Block> blocksOfLatestShuffle()
    {
        MapOutputTracker tracker = SparkEnv.get().mapOutputTracker();
        for (int shuffleId = 50; shuffleId >= 0; shuffleId--) {
            List<Block> blocks = new ArrayList<>();
            try {
                var statuses = CollectionConverters.asJava(tracker.getMapSizesByExecutorId(shuffleId, 0, Integer.MAX_VALUE, 0, 8));
                while (statuses.hasNext()) {
                    Tuple2<BlockManagerId, scala.collection.Seq<Tuple3<org.apache.spark.storage.BlockId, Object, Object>>> entry = statuses.next();
                    Optional<PeerAddress> peer = PeerEndpoints.tcpPeer(entry._1());
                    for (Tuple3<org.apache.spark.storage.BlockId, Object, Object> located : CollectionConverters.asJava(entry._2())) {
                        if (peer.isPresent() && located._1() instanceof ShuffleBlockId id) {
                            blocks.add(new Block(peer.get(), new ShuffleBlockRef(id.shuffleId(), id.mapId(), id.reduceId()), (Long) located._2()));
                        }
                    }
                }
            }
            catch (RuntimeException missing) {
                continue;
            }
            if (!blocks.isEmpty()) {
                return blocks;
            }
        }
        return List.of();
    }

    private static byte[] frame(int length, int type)
    {
        return java.nio.ByteBuffer.allocate(5).putInt(length).put((byte) type).array();
    }

    private static byte[] request(ShuffleBlockRef ref)
    {
        return java.nio.ByteBuffer.allocate(4 + 1 + 28).putInt(29).put((byte) 1).putLong(1).putInt(ref.shuffleId()).putInt(1).putLong(ref.mapId()).putInt(ref.reduceId()).array();
    }

    private static int answeredBytes(PeerAddress peer, byte[] prefix)
            throws Exception
    {
        try (Socket socket = new Socket(peer.host(), peer.port())) {
            socket.setSoTimeout(40_000);
            socket.getOutputStream().write(prefix);
            socket.getOutputStream().flush();
            int answered = 0;
            try {
                for (int read = socket.getInputStream().read(); read >= 0; read = socket.getInputStream().read()) {
                    answered++;
                }
            }
            catch (java.net.SocketException reset) {
                // Closed with our bytes unread.
            }
            return answered;
        }
    }

    /** A loopback relay to an executor's Ferry port (at the executor's own address) that records every byte both ways. */
    private static final class CapturingRelay
            implements AutoCloseable
    {
        private final ServerSocket listener = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
        private final java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        private final List<Socket> sockets = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final PeerAddress target;

        CapturingRelay(PeerAddress target)
                throws java.io.IOException
        {
            this.target = target;
            Thread accept = new Thread(this::accept, "capturing-relay");
            accept.setDaemon(true);
            accept.start();
        }

        int port()
        {
            return listener.getLocalPort();
        }

        private void accept()
        {
            try {
                while (true) {
                    Socket client = listener.accept();
                    Socket server = new Socket(target.host(), target.port());
                    sockets.add(client);
                    sockets.add(server);
                    pump(client, server);
                    pump(server, client);
                }
            }
            catch (java.io.IOException closed) {
                // Relay closed.
            }
        }

        private void pump(Socket from, Socket to)
        {
            Thread thread = new Thread(() -> {
                byte[] buffer = new byte[16 * 1024];
                try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                    for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
                        synchronized (captured) {
                            captured.write(buffer, 0, read);
                        }
                        out.write(buffer, 0, read);
                        out.flush();
                    }
                }
                catch (java.io.IOException closed) {
                    // Either side went away.
                }
            }, "capturing-relay-pump");
            thread.setDaemon(true);
            thread.start();
        }

        byte[] captured()
        {
            synchronized (captured) {
                return captured.toByteArray();
            }
        }

        @Override
        public void close()
                throws java.io.IOException
        {
            listener.close();
            for (Socket socket : sockets) {
                socket.close();
            }
        }
    }
}
