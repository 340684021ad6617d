package dev.ferry.shuffle.transport.wire;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.ferry.shuffle.transport.ShuffleBlockRef;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every message through the frame writer and reader; every malformed frame rejected before anything is allocated from its lengths. */
class TestProtocol
{
    private static final long MAX_FRAME = 1 << 20;

    @Test
    void everyMessageRoundTrips()
            throws IOException
    {
        List<Message> messages = List.of(
                FetchRequest.of(7, FetchRoute.INLINE, List.of(new ShuffleBlockRef(3, 100, 0), new ShuffleBlockRef(3, Long.MAX_VALUE, 9))),
                new FetchFailure(8, 1, "No map output for shuffle_3_100_0 – ünïcode"),
                FetchRequest.of(10, FetchRoute.GPUDIRECT_RDMA, List.of(new ShuffleBlockRef(3, 1, 2))),
                new BlockResponse(9, 0, 0),
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
        assertNull(reader.read(), "clean end of stream between frames");
    }

    @Test
    void blockBodiesTravelInTheirFrame()
            throws IOException
    {
        byte[] body = new byte[200_000];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) (i * 31);
        }
        try (BufferAllocator allocator = new RootAllocator()) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            FrameWriter writer = new FrameWriter(bytes);
            try (ArrowBuf buffer = allocator.buffer(body.length)) {
                buffer.setBytes(0, body);
                writer.write(new BlockResponse(1, 2, body.length), buffer);
            }
            writer.write(new FetchFailure(1, 3, "next"));
            writer.flush();
            FrameReader reader = new FrameReader(new ByteArrayInputStream(bytes.toByteArray()), MAX_FRAME, EnumSet.allOf(MessageType.class));
            BlockResponse response = (BlockResponse) reader.read();
            assertEquals(new BlockResponse(1, 2, body.length), response);
            try (ArrowBuf received = reader.readBody(response, allocator)) {
                byte[] copy = new byte[body.length];
                received.getBytes(0, copy);
                assertArrayEquals(body, copy);
            }
            assertEquals(new FetchFailure(1, 3, "next"), reader.read());
        }
    }

    @Test
    void lengthsOffTheWireAreBoundsChecked()
    {
        assertMalformed(frame(-5, 1, new byte[0]), "Frame length -5");
        // Each type has its own limit: a block's frame the reader's, a request's 8 MiB, a failure's 128 KiB.
        assertMalformed(frame((int) MAX_FRAME + 1, 2, new byte[0]), "BLOCK_RESPONSE frame length " + (MAX_FRAME + 1) + " exceeds its limit of " + MAX_FRAME);
        assertMalformed(frame(MessageType.REQUEST_FRAME_BYTES + 1, MessageType.FETCH_REQUEST.id(), new byte[0]), "FETCH_REQUEST frame length");
        assertMalformed(frame(MessageType.RESPONSE_FRAME_BYTES + 1, MessageType.BLOCK_LOCATION.id(), new byte[0]), "BLOCK_LOCATION frame length");
        assertMalformed(frame(MessageType.RESPONSE_FRAME_BYTES + 1, 3, new byte[0]), "FETCH_FAILURE frame length");
        assertMalformed(frame(1 + 4, 99, new byte[4]), "Unknown message type");
        // A request claiming a million blocks in a 12-byte body.
        byte[] lyingRequest = java.nio.ByteBuffer.allocate(8 + 1 + 4 + 4 + 12).putLong(1).put((byte) 0).putInt(0).putInt(1_000_000).putLong(5).putInt(0).array();
        assertMalformed(frame(1 + lyingRequest.length, MessageType.FETCH_REQUEST.id(), lyingRequest), "claims 1000000 blocks");
        // A request naming a route that does not exist.
        byte[] badRoute = java.nio.ByteBuffer.allocate(8 + 1 + 4 + 4 + 12).putLong(1).put((byte) 77).putInt(0).putInt(1).putLong(5).putInt(0).array();
        assertMalformed(frame(1 + badRoute.length, MessageType.FETCH_REQUEST.id(), badRoute), "Unknown fetch route 77");
        // A failure claiming a longer message than its frame holds.
        byte[] lyingFailure = java.nio.ByteBuffer.allocate(8 + 4 + 4 + 3).putLong(1).putInt(0).putInt(50).put(new byte[3]).array();
        assertMalformed(frame(1 + lyingFailure.length, 3, lyingFailure), "claims a 50-byte message");
        // A block response whose body length disagrees with its frame.
        byte[] lyingResponse = java.nio.ByteBuffer.allocate(BlockResponse.HEADER_BYTES).putLong(1).putInt(0).putLong(1000).array();
        assertMalformed(frame(1 + lyingResponse.length + 10, 2, lyingResponse), "does not fill");
        // A frame cut short mid-header.
        byte[] truncated = java.util.Arrays.copyOf(frame(1 + 16, MessageType.FETCH_REQUEST.id(), new byte[16]), 10);
        assertThrows(IOException.class, () -> new FrameReader(new ByteArrayInputStream(truncated), MAX_FRAME, EnumSet.allOf(MessageType.class)).read());
    }

    @Test
    void retiredIdsAreRefusedNamingTheOldMessage()
    {
        for (Map.Entry<Byte, String> retired : MessageType.RETIRED.entrySet()) {
            assertNull(MessageType.fromIdOrNull(retired.getKey()), "id " + retired.getKey() + " is retired: no type may take it");
            assertMalformed(frame(1 + 16, retired.getKey(), new byte[16]), "Message type " + retired.getKey() + " (" + retired.getValue() + ") was retired in wire version "
                    + MessageType.WIRE_VERSION + ": the peer runs an older Ferry");
            IllegalArgumentException byId = assertThrows(IllegalArgumentException.class, () -> MessageType.fromId(retired.getKey()));
            assertTrue(byId.getMessage().contains(retired.getValue()), byId.getMessage());
        }
        // The ids of the per-route messages this version retired.
        assertEquals(java.util.Set.of((byte) 1, (byte) 4, (byte) 5, (byte) 6, (byte) 7, (byte) 8, (byte) 9, (byte) 10, (byte) 11), MessageType.RETIRED.keySet());
        // An id never used is still simply unknown.
        assertMalformed(frame(1 + 4, 99, new byte[4]), "Unknown message type 99");
    }

    private static void assertMalformed(byte[] frame, String expected)
    {
        IOException failure = assertThrows(IOException.class, () -> new FrameReader(new ByteArrayInputStream(frame), MAX_FRAME, EnumSet.allOf(MessageType.class)).read());
        assertTrue(failure.getMessage().contains(expected), failure.getMessage());
    }

    private static byte[] frame(int length, int type, byte[] header)
    {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(length);
            out.writeByte(type);
            out.write(header);
            return bytes.toByteArray();
        }
        catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
