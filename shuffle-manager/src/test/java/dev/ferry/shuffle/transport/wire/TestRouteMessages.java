package dev.ferry.shuffle.transport.wire;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;

import dev.ferry.device.IpcHandle;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.shm.ShmBlockHandle;
import dev.ferry.shuffle.transport.rdma.verbs.ConnectionToken;
import dev.ferry.shuffle.transport.wire.RemoteSlice;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The HOST_SHM, RDMA and device-route (IPC, GPUDirect RDMA) messages through the frame writer and reader, and their lengths off the wire bounds-checked. */
class TestRouteMessages
{
    private static final long MAX_FRAME = 1 << 20;

    @Test
    void routeMessagesRoundTrip()
            throws IOException
    {
        List<ShuffleBlockRef> refs = List.of(new ShuffleBlockRef(4, 1, 2), new ShuffleBlockRef(4, 9, 0));
        ShmBlockHandle handle = new ShmBlockHandle("ferry-shm-0123456789abcdef0123456789abcdef", 0, 5000);
        RdmaBlockResponse rdma = new RdmaBlockResponse(6, 1, 300, "127.0.0.1", 4791,
                List.of(new RemoteSlice(0, 0x1000, 100, 77), new RemoteSlice(100, 0x9000, 200, 78)));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        FrameWriter writer = new FrameWriter(bytes);
        writer.write(ShmFetchRequest.of(5, refs));
        writer.write(new ShmBlockResponse(5, 0, handle.toBytes()));
        writer.write(RdmaFetchRequest.of(6, refs));
        writer.write(rdma);
        writer.flush();
        FrameReader reader = new FrameReader(new ByteArrayInputStream(bytes.toByteArray()), MAX_FRAME, EnumSet.allOf(MessageType.class));
        assertEquals(ShmFetchRequest.of(5, refs), reader.read());
        ShmBlockResponse shm = (ShmBlockResponse) reader.read();
        assertEquals(handle, shm.shmHandle());
        assertEquals(new ShmBlockResponse(5, 0, handle.toBytes()), shm, "messages compare by value, handle bytes included");
        assertEquals(RdmaFetchRequest.of(6, refs), reader.read());
        assertEquals(rdma, reader.read());
    }

    @Test
    void rdmaAdmissionMessagesRoundTripAndAreBounded()
            throws IOException
    {
        byte[] token = new byte[ConnectionToken.BYTES];
        token[3] = 9;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        FrameWriter writer = new FrameWriter(bytes);
        writer.write(new RdmaAdmissionRequest("10.0.0.2"));
        writer.write(new RdmaAdmission(token, "10.0.0.1", 4791));
        writer.flush();
        FrameReader reader = new FrameReader(new ByteArrayInputStream(bytes.toByteArray()), MAX_FRAME, EnumSet.allOf(MessageType.class));
        assertEquals(new RdmaAdmissionRequest("10.0.0.2"), reader.read());
        RdmaAdmission admission = (RdmaAdmission) reader.read();
        assertEquals(new RdmaAdmission(token, "10.0.0.1", 4791), admission, "compares by value, token bytes included");
        assertEquals(new ConnectionToken(token), admission.token());
        assertFalse(admission.toString().contains(java.util.HexFormat.of().formatHex(token)), "the token never appears in a log line: " + admission);
        assertThrows(IllegalArgumentException.class, () -> new RdmaAdmission(new byte[7], "10.0.0.1", 4791));
        assertThrows(IllegalArgumentException.class, () -> new RdmaAdmission(token, "10.0.0.1", 0));
        assertThrows(IllegalArgumentException.class, () -> new RdmaAdmissionRequest(""));
        // A token field that lies about its length is refused.
        ByteBuffer lying = ByteBuffer.allocate(64).putInt(1 << 20).flip();
        assertThrows(IllegalArgumentException.class, () -> RdmaAdmission.decode(lying));
    }

    @Test
    void deviceRouteMessagesRoundTrip()
            throws IOException
    {
        List<ShuffleBlockRef> refs = List.of(new ShuffleBlockRef(4, 1, 2));
        IpcHandle handle = new IpcHandle("simulated", 4242, 0, 128, 5000, "/dev/shm/ferry-ipc-lease-0123", new byte[] {1, 2, 3});
        RdmaBlockResponse rdma = new RdmaBlockResponse(8, 0, 300, "127.0.0.1", 4791, List.of(new RemoteSlice(0, 0x1000, 300, 77)));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        FrameWriter writer = new FrameWriter(bytes);
        writer.write(IpcFetchRequest.of(7, refs));
        writer.write(new IpcBlockResponse(7, 0, handle.toBytes()));
        writer.write(GpuRdmaFetchRequest.of(8, refs));
        writer.write(new GpuRdmaBlockResponse(rdma));
        writer.flush();
        FrameReader reader = new FrameReader(new ByteArrayInputStream(bytes.toByteArray()), MAX_FRAME, EnumSet.allOf(MessageType.class));
        assertEquals(IpcFetchRequest.of(7, refs), reader.read());
        IpcBlockResponse ipc = (IpcBlockResponse) reader.read();
        assertEquals(handle, ipc.ipcHandle());
        assertEquals(new IpcBlockResponse(7, 0, handle.toBytes()), ipc, "messages compare by value, handle bytes included");
        assertEquals(GpuRdmaFetchRequest.of(8, refs), reader.read());
        GpuRdmaBlockResponse gpu = (GpuRdmaBlockResponse) reader.read();
        assertEquals(rdma, gpu.location());
        assertEquals(MessageType.GPU_RDMA_BLOCK_RESPONSE, gpu.type());
    }

    @Test
    void rdmaSlicesMustCoverTheBlockAndTheirCountIsChecked()
    {
        assertThrows(IllegalArgumentException.class, () -> new RdmaBlockResponse(1, 0, 300, "h", 1, List.of(new RemoteSlice(0, 1, 100, 1))));
        assertThrows(IllegalArgumentException.class, () -> new RdmaBlockResponse(1, 0, 100, "h", 1, List.of(new RemoteSlice(5, 1, 100, 1))));
        byte[] host = "h".getBytes();
        ByteBuffer lying = ByteBuffer.allocate(8 + 4 + 8 + 2 + host.length + 4 + 4 + 24).putLong(1).putInt(0).putLong(100).putShort((short) host.length).put(host)
                .putInt(1).putInt(1_000_000).putLong(0).putLong(1).putInt(100).putInt(1);
        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class, () -> RdmaBlockResponse.decode(lying.flip()));
        assertTrue(failure.getMessage().contains("claims 1000000 slices"), failure.getMessage());
    }
}
