package dev.ferry.transport.protocol;

import org.junit.jupiter.api.Test;

import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every message through encoder, frame decoder and decoder (whole and byte by byte), pinned byte
 * vectors of the wire format, and the failure modes of malformed input.
 */
class TestProtocolSuite
{
    private static final HexFormat HEX = HexFormat.of();
    private static final ShuffleBlockRef BLOCK = new ShuffleBlockRef(1, 2, 3);

    /** One sample of every message type with its frame written out by hand, field by field. */
    private static List<Object[]> vectors()
    {
        List<Object[]> vectors = new ArrayList<>();
        vectors.add(new Object[] {new BlockLocationsRequest(7, List.of(BLOCK)),
                "0000001d" + "01" + "0000000000000007" + "00000001" + "00000001" + "0000000000000002" + "00000003"});
        vectors.add(new Object[] {new BlockLocationsResponse(9, List.of(new BlockLocation(BLOCK, BlockLocation.HOST, 300,
                        List.of(new BlockSegment(0x1000, 200, 0xAABBCCDD), new BlockSegment(0x2000, 100, 0x11223344))))),
                "0000004d" + "02" + "0000000000000009" + "00000001" + "00000001" + "0000000000000002" + "00000003" + "ffffffff" + "000000000000012c"
                        + "00000002" + "0000000000001000" + "000000c8" + "aabbccdd" + "0000000000002000" + "00000064" + "11223344"});
        vectors.add(new Object[] {new ErrorResponse(5, "no such block"),
                "0000001a" + "03" + "0000000000000005" + "0000000d" + "6e6f2073756368" + "20626c6f636b"});
        vectors.add(new Object[] {new AuthClientHello("app-1", new byte[] {1, 2, 3}),
                "00000011" + "0a" + "00000005" + "6170702d31" + "00000003" + "010203"});
        vectors.add(new Object[] {new AuthServerChallenge(new byte[] {(byte) 0xaa, (byte) 0xbb}, new byte[] {(byte) 0xcc}),
                "0000000c" + "0b" + "00000002" + "aabb" + "00000001" + "cc"});
        vectors.add(new Object[] {new AuthClientProof(new byte[] {(byte) 0xde, (byte) 0xad, (byte) 0xbe, (byte) 0xef}),
                "00000009" + "0c" + "00000004" + "deadbeef"});
        return vectors;
    }

    @Test
    void everyMessageTypeHasAVector()
    {
        List<MessageType> covered = vectors().stream().map(vector -> ((Message) vector[0]).type()).toList();
        assertEquals(List.of(MessageType.values()), covered);
    }

    @Test
    void encodingMatchesThePinnedBytes()
    {
        for (Object[] vector : vectors()) {
            ByteBuffer frame = FrameCodec.encode((Message) vector[0]);
            assertEquals(vector[1], HEX.formatHex(toArray(frame)), vector[0].toString());
        }
    }

    @Test
    void thePinnedBytesDecodeToTheMessage()
    {
        for (Object[] vector : vectors()) {
            List<Message> decoded = new FrameDecoder(1 << 20).feed(ByteBuffer.wrap(HEX.parseHex((String) vector[1])));
            assertEquals(List.of(vector[0]), decoded);
        }
    }

    @Test
    void messagesRoundTripWholeAndByteByByte()
    {
        List<Message> messages = new ArrayList<>();
        vectors().forEach(vector -> messages.add((Message) vector[0]));
        List<BlockLocation> many = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            many.add(new BlockLocation(new ShuffleBlockRef(4, i, i % 7), i % 3 - 1, 1000L + i, List.of(new BlockSegment(0x7f0000000000L + i * 4096L, 1000 + i, i * 31))));
        }
        messages.add(new BlockLocationsResponse(Long.MAX_VALUE, many));
        messages.add(new BlockLocationsResponse(1, List.of()));
        messages.add(new ErrorResponse(0, "unicode \u00e9\u4e2d"));

        ByteBuffer stream = ByteBuffer.allocate(1 << 16);
        for (Message message : messages) {
            stream.put(FrameCodec.encode(message));
        }
        stream.flip();
        assertEquals(messages, new FrameDecoder(1 << 20).feed(stream.duplicate()));

        FrameDecoder byteByByte = new FrameDecoder(1 << 20);
        List<Message> decoded = new ArrayList<>();
        while (stream.hasRemaining()) {
            decoded.addAll(byteByByte.feed(ByteBuffer.wrap(new byte[] {stream.get()})));
        }
        assertEquals(messages, decoded);
        assertFalse(byteByByte.hasPartialFrame());
    }

    @Test
    void oversizedFramesAreRefusedBeforeBuffering()
    {
        FrameDecoder decoder = new FrameDecoder(16);
        IllegalArgumentException tooLarge = assertThrows(IllegalArgumentException.class, () -> decoder.feed(ByteBuffer.wrap(HEX.parseHex("7fffffff"))));
        assertTrue(tooLarge.getMessage().startsWith("Too large frame: 2147483647 bytes (limit 16"), tooLarge.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new FrameDecoder(16).feed(ByteBuffer.wrap(HEX.parseHex("00000000"))));
        assertThrows(IllegalArgumentException.class, () -> new FrameDecoder(16).feed(ByteBuffer.wrap(HEX.parseHex("ffffffff"))));
    }

    @Test
    void malformedBodiesAreErrorsNotPartialMessages()
    {
        // Unknown type id.
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> decode("00000001" + "63"));
        assertTrue(unknown.getMessage().contains("Unknown message type id 99"), unknown.getMessage());
        // A block count of 2 with one block's bytes.
        assertThrows(IllegalArgumentException.class,
                () -> decode("0000001d" + "01" + "0000000000000007" + "00000002" + "00000001" + "0000000000000002" + "00000003"));
        // A count claiming a billion segments: refused before allocating.
        assertThrows(IllegalArgumentException.class, () -> decode("0000002d" + "02" + "0000000000000009" + "00000001"
                + "00000001" + "0000000000000002" + "00000003" + "ffffffff" + "000000000000012c" + "3b9aca00"));
        // Trailing bytes after a complete message.
        IllegalArgumentException trailing = assertThrows(IllegalArgumentException.class, () -> decode("0000000a" + "0c" + "00000004" + "deadbeef" + "00"));
        assertTrue(trailing.getMessage().contains("trailing"), trailing.getMessage());
        // Segments that do not add up to the block length.
        assertThrows(IllegalArgumentException.class, () -> decode("0000003d" + "02" + "0000000000000009" + "00000001" + "00000001" + "0000000000000002"
                + "00000003" + "ffffffff" + "000000000000012d" + "00000001" + "0000000000001000" + "000000c8" + "aabbccdd"));
        // A string longer than its limit.
        assertThrows(IllegalArgumentException.class, () -> decode("00000011" + "03" + "0000000000000005" + "7fffffff" + "00000000"));
    }

    @Test
    void socketChannelsCarryMessagesAndReportTimeoutsAndBadFramesWithThePeer()
            throws Exception
    {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                Socket clientSocket = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
                Socket serverSocket = server.accept();
                SocketMessageChannel client = new SocketMessageChannel(clientSocket, 1 << 20);
                SocketMessageChannel serving = new SocketMessageChannel(serverSocket, 64)) {
            for (Object[] vector : vectors()) {
                if (((Message) vector[0]).encodedLength() < 60) {
                    client.send((Message) vector[0]);
                    assertEquals(vector[0], serving.receive(Duration.ofSeconds(10)));
                }
            }
            IOException silent = assertThrows(IOException.class, () -> serving.receive(Duration.ofMillis(100)));
            assertTrue(silent.getMessage().contains("No message from " + serving.peer() + " within 100 ms"), silent.getMessage());

            DataOutputStream raw = new DataOutputStream(clientSocket.getOutputStream());
            raw.writeInt(1 << 20);
            raw.flush();
            IOException tooLarge = assertThrows(IOException.class, () -> serving.receive(Duration.ofSeconds(10)));
            assertTrue(tooLarge.getMessage().contains("Too large frame") && tooLarge.getMessage().contains(serving.peer()), tooLarge.getMessage());
        }
    }

    private static List<Message> decode(String hex)
    {
        return new FrameDecoder(1 << 20).feed(ByteBuffer.wrap(HEX.parseHex(hex)));
    }

    private static byte[] toArray(ByteBuffer buffer)
    {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }
}
