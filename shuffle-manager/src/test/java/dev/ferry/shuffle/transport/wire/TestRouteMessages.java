package dev.ferry.shuffle.transport.wire;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;

import dev.ferry.device.IpcHandle;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.ipc.IpcLocations;
import dev.ferry.shuffle.transport.rdma.verbs.ConnectionToken;
import dev.ferry.shuffle.transport.shm.ShmBlockHandle;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The one fetch request (every route) and the one block-location response (each sealed location
 * kind) through the frame writer and reader, compared by value, and their fields off the wire
 * bounds-checked before anything is allocated from them.
 */
class TestRouteMessages
{
    private static final long MAX_FRAME = 1 << 20;
    private static final List<ShuffleBlockRef> REFS = List.of(new ShuffleBlockRef(4, 1, 2), new ShuffleBlockRef(4, 9, 0));

    @Test
    void oneFetchRequestCarriesEveryRoute()
            throws IOException
    {
        for (FetchRoute route : FetchRoute.values()) {
            FetchRequest request = FetchRequest.of(5, route, REFS);
            assertEquals(request, roundTrip(request));
            assertEquals(route, FetchRoute.fromId(route.id()));
            assertEquals(REFS.get(1), request.ref(1));
        }
        assertNotEquals(FetchRequest.of(5, FetchRoute.INLINE, REFS), FetchRequest.of(5, FetchRoute.SHARED_MEMORY, REFS), "the route is part of the request's value");
        assertThrows(IllegalArgumentException.class, () -> FetchRequest.of(5, FetchRoute.INLINE, List.of()));
        assertThrows(IllegalArgumentException.class, () -> FetchRequest.of(5, FetchRoute.INLINE, List.of(new ShuffleBlockRef(4, 1, 2), new ShuffleBlockRef(5, 1, 2))));
        assertThrows(IllegalArgumentException.class, () -> FetchRoute.fromId((byte) 9));
    }

    /** A refusal (the route does not work for this block, the reader falls back) round-trips, is cut to its limit, and its length is checked off the wire. */
    @Test
    void routeRefusalsRoundTripAndAreBounded()
            throws IOException
    {
        BlockLocation refusal = new BlockLocation(8, 1, RouteRefusal.of("Cannot register the GPU memory of shuffle_4_9_0 with sim_server: no peer memory"));
        assertEquals(refusal, roundTrip(refusal));
        assertEquals(Location.Kind.ROUTE_REFUSAL, Location.Kind.fromId((byte) 4));
        String cut = RouteRefusal.of("x".repeat(RouteRefusal.MAX_REASON_CHARS + 100)).reason();
        assertEquals(RouteRefusal.MAX_REASON_CHARS + 3, cut.length());
        assertDecodeFails(ByteBuffer.allocate(8 + 4 + 1 + 4 + 3).putLong(1).putInt(0).put(Location.Kind.ROUTE_REFUSAL.id()).putInt(1 << 30).put(new byte[3]),
                "route refusal reason length");
    }

    @Test
    void sharedMemoryLocationsRoundTripFieldByField()
            throws IOException
    {
        ShmBlockHandle handle = new ShmBlockHandle("ferry-shm-0123456789abcdef0123456789abcdef", 0, 5000);
        BlockLocation plain = new BlockLocation(5, 0, handle.toLocation());
        BlockLocation answered = (BlockLocation) roundTrip(plain);
        assertEquals(plain, answered, "compares by value");
        assertEquals(handle, ShmBlockHandle.fromLocation((ShmLocation) answered.location()));

        ShmLocation leased = new ShmLocation("ferry-shm-arena", 4096, 300, Optional.of("ferry-lease-7"));
        assertEquals(new BlockLocation(6, 1, leased), roundTrip(new BlockLocation(6, 1, leased)));
        assertNotEquals(leased, new ShmLocation("ferry-shm-arena", 4096, 300, Optional.empty()));

        assertThrows(IllegalArgumentException.class, () -> new ShmLocation("", 0, 1, Optional.empty()));
        assertThrows(IllegalArgumentException.class, () -> new ShmLocation("x".repeat(256), 0, 1, Optional.empty()));
        assertThrows(IllegalArgumentException.class, () -> new ShmLocation("ferry-shm-é", 0, 1, Optional.empty()));
        assertThrows(IllegalArgumentException.class, () -> new ShmLocation("f", Long.MAX_VALUE, 10, Optional.empty()));
        assertThrows(IllegalArgumentException.class, () -> new ShmLocation("f", 0, 0, Optional.empty()));
        // A name length beyond the bytes there, and a lease flag that is neither 0 nor 1.
        assertDecodeFails(ByteBuffer.allocate(8 + 4 + 1 + 2 + 3).putLong(1).putInt(0).put(Location.Kind.SHARED_MEMORY.id()).putShort((short) 200).put(new byte[3]),
                "claims a 200-byte file name");
        assertDecodeFails(ByteBuffer.allocate(8 + 4 + 1 + 2 + 1 + 17).putLong(1).putInt(0).put(Location.Kind.SHARED_MEMORY.id()).putShort((short) 1).put((byte) 'f')
                .putLong(0).putLong(1).put((byte) 7), "lease flag 7");
    }

    @Test
    void ipcLocationsCarryTheHandlesFields()
            throws IOException
    {
        IpcHandle handle = new IpcHandle("simulated", 4242, 0, 128, 5000, "/dev/shm/ferry-ipc-lease-0123", new byte[] {1, 2, 3});
        IpcLocation location = IpcLocations.toLocation(handle);
        BlockLocation answered = (BlockLocation) roundTrip(new BlockLocation(7, 0, location));
        assertEquals(new BlockLocation(7, 0, location), answered, "compares by value, payload bytes included");
        IpcLocation decoded = (IpcLocation) answered.location();
        assertEquals("simulated", decoded.backend());
        assertEquals(4242, decoded.exporterPid());
        assertEquals(128, decoded.offset());
        assertEquals(5000, decoded.length());
        assertArrayEquals(new byte[] {1, 2, 3}, decoded.payload());
        assertEquals(handle, IpcLocations.toHandle(decoded));
        assertNotEquals(location, IpcLocations.toLocation(new IpcHandle("simulated", 4242, 0, 128, 5000, "/dev/shm/ferry-ipc-lease-0123", new byte[] {1, 2, 4})));
        assertFalse(location.toString().contains("010203"), "the payload is not logged whole: " + location);

        assertThrows(IllegalArgumentException.class, () -> new IpcLocation("cuda", 1, -1, 0, 10, "", new byte[64]));
        assertThrows(IllegalArgumentException.class, () -> new IpcLocation("cuda", 1, 0, 0, 10, "", new byte[IpcLocation.MAX_PAYLOAD_BYTES + 1]));
        // A backend name that claims more bytes than its limit is refused before it is allocated.
        assertDecodeFails(ByteBuffer.allocate(8 + 4 + 1 + 4).putLong(1).putInt(0).put(Location.Kind.IPC.id()).putInt(1 << 30), "IPC backend length");
    }

    @Test
    void remoteSlicesSayWhichMemoryTheyLieIn()
            throws IOException
    {
        RemoteSlices host = new RemoteSlices(RemoteSlices.Memory.HOST, 300, "127.0.0.1", 4791,
                List.of(new RemoteSlice(0, 0x1000, 100, 77), new RemoteSlice(100, 0x9000, 200, 78)));
        RemoteSlices device = new RemoteSlices(RemoteSlices.Memory.DEVICE, 300, "127.0.0.1", 4791, host.slices());
        assertEquals(new BlockLocation(6, 1, host), roundTrip(new BlockLocation(6, 1, host)));
        assertEquals(new BlockLocation(8, 0, device), roundTrip(new BlockLocation(8, 0, device)));
        assertNotEquals(host, device, "the memory is part of the location");
        RemoteSlices empty = new RemoteSlices(RemoteSlices.Memory.HOST, 0, "127.0.0.1", 4791, List.of());
        assertEquals(new BlockLocation(6, 2, empty), roundTrip(new BlockLocation(6, 2, empty)));
    }

    @Test
    void remoteSlicesMustCoverTheBlockAndTheirCountIsChecked()
    {
        assertThrows(IllegalArgumentException.class, () -> new RemoteSlices(RemoteSlices.Memory.HOST, 300, "h", 1, List.of(new RemoteSlice(0, 1, 100, 1))));
        assertThrows(IllegalArgumentException.class, () -> new RemoteSlices(RemoteSlices.Memory.HOST, 100, "h", 1, List.of(new RemoteSlice(5, 1, 100, 1))));
        byte[] host = "h".getBytes();
        ByteBuffer lying = ByteBuffer.allocate(8 + 4 + 1 + 1 + 8 + 2 + host.length + 4 + 4 + 24).putLong(1).putInt(0).put(Location.Kind.REMOTE_SLICES.id())
                .put((byte) 0).putLong(100).putShort((short) host.length).put(host).putInt(1).putInt(1_000_000).putLong(0).putLong(1).putInt(100).putInt(1);
        assertDecodeFails(lying, "claim 1000000 slices");
        ByteBuffer unknownMemory = ByteBuffer.allocate(8 + 4 + 1 + 1 + 8 + 2).putLong(1).putInt(0).put(Location.Kind.REMOTE_SLICES.id()).put((byte) 5).putLong(0)
                .putShort((short) 0);
        assertDecodeFails(unknownMemory, "unknown memory 5");
    }

    @Test
    void unknownLocationKindsAndTrailingBytesAreMalformedFrames()
    {
        assertDecodeFails(ByteBuffer.allocate(8 + 4 + 1).putLong(1).putInt(0).put((byte) 42), "Unknown block location kind 42");
        // A location followed by bytes it does not account for: the frame is refused whole.
        ShmLocation location = new ShmLocation("f", 0, 1, Optional.empty());
        ByteBuffer frame = ByteBuffer.allocate(4 + 1 + 8 + 4 + 1 + location.encodedLength() + 3);
        frame.putInt(frame.capacity() - 4).put(MessageType.BLOCK_LOCATION.id()).putLong(1).putInt(0).put(location.kind().id());
        location.encode(frame);
        frame.put(new byte[3]);
        IOException failure = assertThrows(IOException.class,
                () -> new FrameReader(new ByteArrayInputStream(frame.array()), MAX_FRAME, EnumSet.allOf(MessageType.class)).read());
        assertTrue(failure.getMessage().contains("3 trailing bytes after BLOCK_LOCATION"), failure.getMessage());
    }

    @Test
    void rdmaAdmissionMessagesRoundTripAndAreBounded()
            throws IOException
    {
        byte[] token = new byte[ConnectionToken.BYTES];
        token[3] = 9;
        assertEquals(new RdmaAdmissionRequest("10.0.0.2"), roundTrip(new RdmaAdmissionRequest("10.0.0.2")));
        RdmaAdmission admission = (RdmaAdmission) roundTrip(new RdmaAdmission(token, "10.0.0.1", 4791));
        assertEquals(new RdmaAdmission(token, "10.0.0.1", 4791), admission, "compares by value, token bytes included");
        assertEquals(new ConnectionToken(token), new ConnectionToken(admission.token()));
        assertFalse(admission.toString().contains(java.util.HexFormat.of().formatHex(token)), "the token never appears in a log line: " + admission);
        assertThrows(IllegalArgumentException.class, () -> new RdmaAdmission(new byte[7], "10.0.0.1", 4791));
        assertThrows(IllegalArgumentException.class, () -> new RdmaAdmission(token, "10.0.0.1", 0));
        assertThrows(IllegalArgumentException.class, () -> new RdmaAdmissionRequest(""));
        // A token field that lies about its length is refused.
        ByteBuffer lying = ByteBuffer.allocate(64).putInt(1 << 20).flip();
        assertThrows(IllegalArgumentException.class, () -> RdmaAdmission.decode(lying));
    }

    private static Message roundTrip(Message message)
            throws IOException
    {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        FrameWriter writer = new FrameWriter(bytes);
        writer.write(message);
        writer.flush();
        FrameReader reader = new FrameReader(new ByteArrayInputStream(bytes.toByteArray()), MAX_FRAME, EnumSet.allOf(MessageType.class));
        Message read = reader.read();
        assertEquals(message.hashCode(), read.hashCode(), "equal values hash alike");
        return read;
    }

    private static void assertDecodeFails(ByteBuffer body, String expected)
    {
        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class, () -> BlockLocation.decode(body.flip()));
        assertTrue(failure.getMessage().contains(expected), failure.getMessage());
    }
}
