package dev.ferry.shuffle.transport.wire;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The authentication handshake's messages are frames of the one shuffle protocol: round trips, fixed bytes, unique ids. */
class TestAuthMessages
{
    private static final long MAX_FRAME = 1 << 20;

    @Test
    void authMessagesRoundTripBetweenShuffleFrames()
            throws IOException
    {
        List<Message> messages = List.of(
                new AuthClientHello(new byte[] {1, 2, 3}, new byte[] {10, 11}),
                new FetchFailure(1, 0, "between handshake frames"),
                new AuthServerChallenge(new byte[] {4, 5}),
                new AuthClientProof(new byte[] {7, 8, 9}),
                new AuthServerProof(new byte[] {12}, new byte[] {13, 14}),
                new AuthFailure("authentication failed: ünïcode"),
                new FetchDone());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        FrameWriter writer = new FrameWriter(bytes);
        for (Message message : messages) {
            writer.write(message);
        }
        writer.flush();
        FrameReader reader = new FrameReader(new ByteArrayInputStream(bytes.toByteArray()), MAX_FRAME, EnumSet.allOf(MessageType.class));
        for (Message message : messages) {
            assertEquals(message, reader.read());
        }
        assertNull(reader.read());
    }

    @Test
    void helloHasAFixedWireForm()
            throws IOException
    {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new FrameWriter(bytes).write(new AuthClientHello(new byte[] {(byte) 0xff}, new byte[] {'a', 'b'}));
        // frame length 1 + (4 + 1) + (4 + 2), type 12, nonce ff, public key "ab": no application id
        assertArrayEquals(new byte[] {0, 0, 0, 12, 12, 0, 0, 0, 1, (byte) 0xff, 0, 0, 0, 2, 'a', 'b'}, bytes.toByteArray());
    }

    @Test
    void everyMessageTypeHasItsOwnId()
    {
        Set<Byte> ids = new HashSet<>();
        for (MessageType type : MessageType.values()) {
            assertTrue(ids.add(type.id()), "duplicate id " + type.id() + " of " + type);
            assertEquals(type, MessageType.fromId(type.id()));
        }
        assertEquals(12, MessageType.AUTH_CLIENT_HELLO.id());
        assertEquals(15, MessageType.AUTH_FAILURE.id());
    }

    @Test
    void malformedAuthFramesAreRejected()
            throws IOException
    {
        // A nonce longer than any the handshake sends, and bytes after a complete message.
        byte[] hugeNonce = ByteBuffer.allocate(4 + 1 + 4).putInt(1).put((byte) 'a').putInt(1_000_000).array();
        assertMalformed(frame(12, ByteBuffer.allocate(4).putInt(1_000_000).array()), "Malformed AUTH_CLIENT_HELLO");
        assertMalformed(frame(12, hugeNonce), "Malformed AUTH_CLIENT_HELLO");
        // A handshake frame beyond a few KiB, and a request before authentication, are refused before their bytes are read.
        assertMalformed(frame(12, new byte[MessageType.HANDSHAKE_FRAME_BYTES]), "exceeds its limit");
        assertMalformed(frame(MessageType.FETCH_REQUEST.id(), new byte[20]), "Unexpected FETCH_REQUEST");
        byte[] trailing = ByteBuffer.allocate(4 + 1 + 2).putInt(1).put((byte) 9).put(new byte[2]).array();
        assertMalformed(frame(14, trailing), "trailing bytes");
    }

    private static void assertMalformed(byte[] frame, String expected)
    {
        IOException failure = assertThrows(IOException.class, () -> new FrameReader(new ByteArrayInputStream(frame), MAX_FRAME, MessageType.SERVER_HANDSHAKE).read());
        assertTrue(failure.getMessage().contains(expected), failure.getMessage());
    }

    private static byte[] frame(int type, byte[] body)
            throws IOException
    {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(1 + body.length);
        out.writeByte(type);
        out.write(body);
        return bytes.toByteArray();
    }
}
