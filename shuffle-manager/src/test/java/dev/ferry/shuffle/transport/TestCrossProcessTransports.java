package dev.ferry.shuffle.transport;

import java.io.ByteArrayInputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.ferry.common.FerryException;
import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.CopyRoute;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.IpcHandle;
import dev.ferry.device.PeerLink;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.device.pool.DeviceMemoryPool;
import dev.ferry.shuffle.transport.ipc.DeviceBlockReader;
import dev.ferry.shuffle.transport.ipc.DeviceLanding;
import dev.ferry.shuffle.transport.metrics.RouteCounters;
import dev.ferry.shuffle.transport.rdma.verbs.Access;
import dev.ferry.shuffle.transport.rdma.verbs.ConnectionToken;
import dev.ferry.shuffle.transport.rdma.verbs.DeviceRegistrations;
import dev.ferry.shuffle.transport.rdma.verbs.ReadTarget;
import dev.ferry.shuffle.transport.rdma.verbs.Registration;
import dev.ferry.shuffle.transport.rdma.verbs.RemoteReader;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsConnection;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsDevice;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsException;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.CmFault;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedNicOptions;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedVerbsProvider;
import dev.ferry.shuffle.transport.shm.ShmBlockHandle;
import dev.ferry.shuffle.transport.shm.ShmBlockReader;
import dev.ferry.shuffle.transport.shm.ShmNames;
import dev.ferry.shuffle.transport.wire.BlockLocation;
import dev.ferry.shuffle.transport.wire.FrameReader;
import dev.ferry.shuffle.transport.wire.MessageType;
import dev.ferry.shuffle.transport.wire.RemoteSlice;
import dev.ferry.shuffle.transport.wire.RemoteSlices;
import dev.ferry.shuffle.transport.wire.ShmLocation;
import dev.ferry.topology.route.Route;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The building blocks between two real JVMs, as two executors of one node (or two simulated
 * nodes) would use them: the child serves, this JVM reads, and every byte is checked.
 */
class TestCrossProcessTransports
{
    private static final Duration WAIT = Duration.ofSeconds(30);

    private static DeviceRuntime simulatedRuntime()
    {
        return DeviceRuntime.create(new MapConfigSource(TransportChild.DEVICE_CONFIG));
    }

    private static byte[] toHost(DeviceRuntime runtime, DeviceBuffer buffer)
    {
        ByteBuffer host = ByteBuffer.allocateDirect(Math.toIntExact(buffer.length()));
        try (DeviceStream stream = runtime.newStream(buffer.location().device())) {
            stream.copyToHost(buffer, 0, host);
            stream.synchronize();
        }
        return TestBytes.toArray(host.flip());
    }

    @Test
    void simulatedGpuDirectRdmaReadsAnotherProcessesGpuBlockAndStaleKeysFail()
            throws Exception
    {
        int length = 10_000; // three regions of at most 4096 bytes on the serving side
        try (ChildProcess child = ChildProcess.start(TransportChild.class, "verbs-gpu", "21", String.valueOf(length));
                DeviceRuntime runtime = simulatedRuntime();
                VerbsDevice device = new SimulatedVerbsProvider(new SimulatedNicOptions(true, 1 << 20, false, CmFault.NONE))
                        .openLoopbackDevice("sim_mlx5_1", TransportChild.VERBS_SETTINGS)) {
            int port = Integer.parseInt(child.expect("LISTEN"));
            FrameReader frames = new FrameReader(new ByteArrayInputStream(Base64.getDecoder().decode(child.expect("LOCATIONS"))), 1 << 20, dev.ferry.shuffle.transport.wire.MessageType.RESPONSES);
            BlockLocation response = assertInstanceOf(BlockLocation.class, frames.read());
            RemoteSlices location = assertInstanceOf(RemoteSlices.class, response.location());
            assertEquals(RemoteSlices.Memory.DEVICE, location.memory(), "the block lives on the serving GPU");
            assertEquals(length, location.length());
            assertEquals(3, location.slices().size());

            RouteCounters counters = new RouteCounters();
            try (DeviceBuffer sinkBuffer = runtime.deviceAllocator(1).allocate(length)) {
                Registration sink = device.protectionDomain().register(DeviceRegistrations.of(sinkBuffer), Access.readSink());
                List<ReadTarget> targets = targets(location);
                InetSocketAddress peer = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
                try (VerbsConnection connection = device.connect(peer, WAIT, admission(child))) {
                    new RemoteReader(connection, TransportChild.VERBS_SETTINGS, 3000).read(targets, sink, WAIT);
                    counters.recordBlock(Route.GPUDIRECT_RDMA, length);
                }
                assertArrayEquals(TestBytes.bytes(21, length), toHost(runtime, sinkBuffer));
                assertEquals(length, counters.bytes(Route.GPUDIRECT_RDMA));

                // One byte past the last segment: the serving NIC refuses, it never reads beyond a region.
                RemoteSlice last = location.slices().get(2);
                List<ReadTarget> beyond = List.of(new ReadTarget(new RemoteSlice(0, last.address() + 1, last.length(), last.rkey()), 0));
                try (VerbsConnection connection = device.connect(peer, WAIT, admission(child))) {
                    VerbsException outside = assertThrows(VerbsException.class, () -> new RemoteReader(connection, TransportChild.VERBS_SETTINGS, 3000).read(beyond, sink, WAIT));
                    assertTrue(outside.getMessage().contains("REM_ACCESS_ERR"), outside.getMessage());
                }

                child.send("DEREG");
                assertEquals("DEREGISTERED", child.nextLine());
                try (VerbsConnection connection = device.connect(peer, WAIT, admission(child))) {
                    VerbsException stale = assertThrows(VerbsException.class, () -> new RemoteReader(connection, TransportChild.VERBS_SETTINGS, 3000).read(targets, sink, WAIT));
                    assertTrue(stale.getMessage().contains("REM_ACCESS_ERR"), stale.getMessage());
                }
                sink.deregister();
            }
            child.send("EXIT");
            assertEquals("BYE", child.nextLine());
            assertEquals(0, child.waitFor());
        }
    }

    @Test
    void ipcExportedGpuBlockIsCopiedPeerToPeerStagedOrToHost()
            throws Exception
    {
        int length = 3 * 4096 + 100;
        try (ChildProcess child = ChildProcess.start(TransportChild.class, "ipc", "22", String.valueOf(length)); DeviceRuntime runtime = simulatedRuntime();
                DeviceMemoryPool pool = new DeviceMemoryPool(runtime, 1, 0, 100)) {
            DeviceLanding landing = new DeviceLanding(runtime, pool);
            IpcHandle handle = IpcHandle.fromBase64(child.expect("HANDLE"));
            RouteCounters counters = new RouteCounters();
            DeviceBlockReader reader = new DeviceBlockReader(runtime, 1, counters, 4096, 0);
            byte[] expected = TestBytes.bytes(22, length);

            try (DeviceBuffer viaNvlink = reader.readToDevice(handle, landing, Route.NVLINK)) {
                assertEquals(1, viaNvlink.location().device());
                assertEquals(length, pool.allocatedBytes(), "the landed block counts in the reader's pool while held");
                assertArrayEquals(expected, toHost(runtime, viaNvlink));
            }
            assertTrue(runtime.isPeerAccessEnabled(1, 0), "the peer copy enabled peer access from the reader's GPU to the writer's");
            assertEquals(0, pool.allocatedBytes(), "and goes back to it on release");
            try (DeviceBuffer staged = reader.readToDevice(handle, landing, Route.HOST_STAGED)) {
                assertArrayEquals(expected, toHost(runtime, staged));
            }
            ByteBuffer host = ByteBuffer.allocateDirect(length);
            reader.readToHost(handle, host);
            assertArrayEquals(expected, TestBytes.toArray(host.flip()));

            assertEquals(length, counters.bytes(Route.NVLINK));
            assertEquals(length, runtime.peerBytesCopied(PeerLink.NVLINK), "a peer copy into the reader's GPU");
            assertEquals(length, runtime.bytesCopied(CopyRoute.PEER));
            assertEquals(length, counters.bytes(Route.HOST_STAGED));
            assertEquals(1, counters.blocks(Route.PEER_GPU_D2H), "a host read of the peer's GPU block is named for what it is");
            assertEquals(length, counters.bytes(Route.PEER_GPU_D2H));
            assertEquals(0, counters.blocks(Route.PCIE_P2P));
            assertEquals(2L * length, runtime.bytesCopied(CopyRoute.PEER_DEVICE_TO_HOST), "the staged read's download and the host read: the writer GPU's D->H");
            assertEquals(1, runtime.ipcMappings().opened(), "three reads of one arena, imported on the reader's GPU: one mapping");
            assertEquals(2, runtime.ipcMappings().reused());
            assertThrows(IllegalArgumentException.class, () -> reader.readToDevice(handle, landing, Route.TCP));
            assertThrows(IllegalArgumentException.class, () -> reader.readToHost(handle, ByteBuffer.allocateDirect(length - 1)));
            assertEquals(0, pool.allocatedBytes(), "no landing buffer leaked");
            assertEquals(0, runtime.deviceAllocator(1).allocatedBytes(), "no buffer leaked on the reader's GPU");
            child.send("EXIT");
            assertEquals("BYE", child.nextLine());
        }
    }

    @Test
    void aPeerRouteTheBackendRefusesFallsBackToHostStagedWithItsReason()
            throws Exception
    {
        int length = 2 * 4096 + 9;
        Map<String, String> noPeerAccess = new HashMap<>(TransportChild.DEVICE_CONFIG);
        noPeerAccess.put("spark.ferry.device.simulated.peerAccess", "false");
        try (ChildProcess child = ChildProcess.start(TransportChild.class, "ipc", "24", String.valueOf(length));
                DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(noPeerAccess));
                DeviceMemoryPool pool = new DeviceMemoryPool(runtime, 1, 0, 100)) {
            IpcHandle handle = IpcHandle.fromBase64(child.expect("HANDLE"));
            RouteCounters counters = new RouteCounters();
            DeviceBlockReader reader = new DeviceBlockReader(runtime, 1, counters, 4096, 0);
            try (DeviceBuffer landed = reader.readToDevice(handle, new DeviceLanding(runtime, pool), Route.NVLINK)) {
                assertArrayEquals(TestBytes.bytes(24, length), toHost(runtime, landed));
            }
            assertEquals(0, counters.blocks(Route.NVLINK), "NVLink carried nothing");
            assertEquals(length, counters.bytes(Route.HOST_STAGED), "counted on the route that carried it");
            assertEquals(1, reader.peerFallbacks());
            assertEquals(1, runtime.peerCopyRefusals());
            assertTrue(runtime.peerAccessRefusal(1, 0).orElseThrow().contains("cannot access device 0 as a peer"), runtime.peerAccessRefusal(1, 0).toString());
            child.send("EXIT");
            assertEquals("BYE", child.nextLine());
        }
    }

    @Test
    void sharedMemoryHostBlockIsReadInAnotherProcessAndGoneAfterRelease()
            throws Exception
    {
        int length = 70_000;
        try (ChildProcess child = ChildProcess.start(TransportChild.class, "shm", "23", String.valueOf(length))) {
            ShmBlockHandle handle = ShmBlockHandle.fromLocation(ShmLocation.decode(ByteBuffer.wrap(Base64.getDecoder().decode(child.expect("SHM")))));
            RouteCounters counters = new RouteCounters();
            ShmBlockReader reader = new ShmBlockReader(ShmNames.directory(MapConfigSource.empty()), counters);
            ByteBuffer target = ByteBuffer.allocate(length);
            reader.read(handle, target);
            assertArrayEquals(TestBytes.bytes(23, length), target.array());
            assertEquals(length, counters.bytes(Route.HOST_SHM));

            ShmBlockHandle tooLong = new ShmBlockHandle(handle.fileName(), 1, length);
            FerryException outside = assertThrows(FerryException.class, () -> reader.read(tooLong, ByteBuffer.allocate(length)));
            assertTrue(outside.getMessage().contains("outside the file's " + length + " bytes"), outside.getMessage());

            child.send("RELEASE");
            assertEquals("RELEASED", child.nextLine());
            FerryException gone = assertThrows(FerryException.class, () -> reader.read(handle, ByteBuffer.allocate(length)));
            assertTrue(gone.getMessage().contains("may have released it"), gone.getMessage());
            assertEquals(1, counters.blocks(Route.HOST_SHM), "failed reads are not counted");
            child.send("EXIT");
            assertEquals("BYE", child.nextLine());
        }
    }

    private static List<ReadTarget> targets(RemoteSlices location)
    {
        List<ReadTarget> targets = new ArrayList<>();
        for (RemoteSlice slice : location.slices()) {
            targets.add(new ReadTarget(slice, slice.offset()));
        }
        return targets;
    }

    /** A one-time token for one queue pair at the child's NIC, as the child's block server would issue it. */
    private static ConnectionToken admission(ChildProcess child)
            throws Exception
    {
        child.send("ADMIT");
        return new ConnectionToken(Base64.getDecoder().decode(child.expect("TOKEN")));
    }
}
