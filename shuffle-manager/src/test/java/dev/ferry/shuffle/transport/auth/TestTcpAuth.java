package dev.ferry.shuffle.transport.auth;

import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.FetchedBlocks;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.auth.SparkAuthSettings;
import dev.ferry.shuffle.transport.client.TcpShuffleTransport;
import dev.ferry.shuffle.transport.routing.BlockServers;
import dev.ferry.shuffle.transport.server.TcpBlockServer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** With spark.authenticate on, the TCP transport serves only peers that prove Spark's shared secret. */
class TestTcpAuth
{
    private static final ShuffleBlockRef BLOCK = new ShuffleBlockRef(1, 2, 3);
    private static final byte[] BYTES = "authenticated block bytes".getBytes(java.nio.charset.StandardCharsets.UTF_8);

    private static TcpAuth auth(String secret)
    {
        return new TcpAuth(new SparkAuthSettings(true, "app-1", Optional.of(secret)), Duration.ofSeconds(5));
    }

    @Test
    void onlyPeersWithTheSharedSecretAreServed()
            throws Exception
    {
        try (BufferAllocator allocator = new RootAllocator();
                TcpBlockServer server = BlockServers.builder(ref -> {
                    ArrowBuf buffer = allocator.buffer(BYTES.length);
                    buffer.setBytes(0, BYTES);
                    return Optional.of(new BlockBytes(buffer, BYTES.length));
                }).bind(InetAddress.getLoopbackAddress(), 0).maxFrameBytes(1 << 20).auth(auth("shared-secret")).start()) {
            PeerAddress peer = new PeerAddress("1", InetAddress.getLoopbackAddress().getHostAddress(), server.port());
            try (TcpShuffleTransport good = new TcpShuffleTransport(5000, 1 << 20, auth("shared-secret"))) {
                for (int round = 0; round < 2; round++) {
                    try (FetchedBlocks fetched = good.fetch(peer, List.of(BLOCK), allocator)) {
                        byte[] copy = new byte[BYTES.length];
                        fetched.blocks().get(0).buffer().getBytes(0, copy);
                        assertArrayEquals(BYTES, copy);
                        assertEquals("TCP", fetched.route());
                    }
                }
            }
            try (TcpShuffleTransport wrong = new TcpShuffleTransport(5000, 1 << 20, auth("other-secret"))) {
                assertThrows(IOException.class, () -> wrong.fetch(peer, List.of(BLOCK), allocator));
            }
            try (TcpShuffleTransport none = new TcpShuffleTransport(5000, 1 << 20)) {
                assertThrows(IOException.class, () -> none.fetch(peer, List.of(BLOCK), allocator));
            }
        }
    }
}
