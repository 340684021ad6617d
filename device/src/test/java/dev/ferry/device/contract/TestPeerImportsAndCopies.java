package dev.ferry.device.contract;

import dev.ferry.common.FerryException;
import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.CopyRoute;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.IpcHandle;
import dev.ferry.device.PeerCopy;
import dev.ferry.device.PeerLink;
import dev.ferry.device.ipc.IpcMappingStats;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.topology.model.PathClass;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * IPC imports on the reader's own device, one kept mapping per exporter arena, and peer copies
 * into the reader's GPU, against a second (exporting) JVM on the simulated backend: what the cuda
 * backend does with {@code cudaIpcOpenMemHandle} on the reader's context and
 * {@code cudaMemcpyPeerAsync}, with the same contract and the same counts.
 */
class TestPeerImportsAndCopies
{
    private static final int BLOCKS = 12;
    private static final int LENGTH = 48 * 1024;
    private static final long SEED = 9100;
    // The exporter's blocks are on its GPU 1; this (reading) executor's GPU is 0.
    private static final int EXPORTER_DEVICE = 1;
    private static final int READER_DEVICE = 0;

    private static Map<String, String> readerConfig(boolean peerAccess)
    {
        Map<String, String> config = new HashMap<>();
        config.put("spark.ferry.device", "simulated");
        config.put("spark.ferry.device.simulated.count", "2");
        config.put("spark.ferry.device.simulated.capacity", "4m");
        config.put("spark.ferry.device.simulated.peerAccess", String.valueOf(peerAccess));
        return config;
    }

    private static List<IpcHandle> handles(ChildJvm exporter)
            throws Exception
    {
        List<IpcHandle> handles = new ArrayList<>();
        while (true) {
            String line = exporter.nextLine(60, TimeUnit.SECONDS);
            if (line.equals("READY")) {
                return handles;
            }
            assertTrue(line.startsWith("HANDLE "), line);
            handles.add(IpcHandle.fromBase64(line.substring("HANDLE ".length())));
        }
    }

    @Test
    void everyBlockOfAnArenaReusesOneMappingOnTheReadersDeviceAndPeerCopiesCountTheirLink()
            throws Exception
    {
        try (ChildJvm exporter = ChildJvm.start(PeerExporterChild.class, "simulated", String.valueOf(EXPORTER_DEVICE), String.valueOf(BLOCKS), String.valueOf(LENGTH), String.valueOf(SEED));
                DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(readerConfig(true)))) {
            List<IpcHandle> handles = handles(exporter);
            assertEquals(BLOCKS, handles.size());
            long nvlinkBytes = 0;
            long pcieBytes = 0;
            for (int i = 0; i < handles.size(); i++) {
                // Alternate the pair's bus as two topologies would relate GPU1 and GPU0: NV12 on a DGX, PXB on a PCIe box.
                PeerLink link = PeerLink.of(i % 2 == 0 ? PathClass.NVLINK : PathClass.PXB);
                try (DeviceBuffer imported = runtime.openIpc(handles.get(i), READER_DEVICE);
                        DeviceBuffer landing = runtime.deviceAllocator(READER_DEVICE).allocate(LENGTH)) {
                    assertEquals(EXPORTER_DEVICE, imported.location().device(), "the bytes stay where the exporter put them");
                    assertEquals(READER_DEVICE, imported.memory().importingDevice().getAsInt(), "imported on the reader's own device");
                    PeerCopy copy = runtime.copyFromPeer(imported, landing, link);
                    assertTrue(copy.copied(), copy.refusal().orElse(""));
                    assertFalse(copy.sameDevice());
                    assertEquals(LENGTH, copy.bytes());
                    if (link == PeerLink.NVLINK) {
                        nvlinkBytes += LENGTH;
                    }
                    else {
                        pcieBytes += LENGTH;
                    }
                    assertLanded(runtime, landing, SEED + i);
                }
            }
            IpcMappingStats mappings = runtime.ipcMappings();
            assertEquals(1, mappings.opened(), "one exporter arena, one importing device: opened once for " + BLOCKS + " blocks");
            assertEquals(BLOCKS - 1, mappings.reused());
            assertEquals(1, mappings.open(), "the mapping stays open for the exporter's next block");
            assertEquals(nvlinkBytes, runtime.peerBytesCopied(PeerLink.NVLINK));
            assertEquals(pcieBytes, runtime.peerBytesCopied(PeerLink.PCIE_P2P));
            assertEquals((long) BLOCKS * LENGTH, runtime.bytesCopied(CopyRoute.PEER));
            assertTrue(runtime.isPeerAccessEnabled(READER_DEVICE, EXPORTER_DEVICE), "enabled on the first peer copy");
            // The check-back reads above went device -> host on the reader's own GPU; the peer copies crossed no host link.
            assertEquals(0, runtime.bytesCopied(CopyRoute.PEER_DEVICE_TO_HOST));
            assertEquals(0, runtime.bytesCopied(CopyRoute.HOST_TO_DEVICE));
            assertEquals((long) BLOCKS * LENGTH, runtime.bytesCopied(CopyRoute.DEVICE_TO_HOST), "only the test's own check-back reads");

            assertEquals(0, runtime.sweepPeerMappings(), "the exporter still runs: its mapping stays");
            assertEquals(1, runtime.closePeerMappings(handles.get(0).exporterPid()), "the peer departed: its arena mapping closes");
            assertEquals(0, runtime.ipcMappings().open());
            exporter.send("CLOSE");
            assertEquals("CLOSED", exporter.nextLine(60, TimeUnit.SECONDS));
        }
    }

    @Test
    void aHostReadOfAPeerBlockIsTheExportersDeviceToHostOnTheReadersStream()
            throws Exception
    {
        try (ChildJvm exporter = ChildJvm.start(PeerExporterChild.class, "simulated", String.valueOf(EXPORTER_DEVICE), "3", String.valueOf(LENGTH), String.valueOf(SEED));
                DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(readerConfig(true)))) {
            List<IpcHandle> handles = handles(exporter);
            for (int i = 0; i < handles.size(); i++) {
                try (DeviceBuffer imported = runtime.openIpc(handles.get(i), READER_DEVICE)) {
                    try (DeviceStream exporters = runtime.newStream(EXPORTER_DEVICE)) {
                        FerryException wrongContext = assertThrows(FerryException.class, () -> exporters.copyToHost(imported, 0, ByteBuffer.allocateDirect(LENGTH)));
                        assertTrue(wrongContext.getMessage().contains("imported on device 0"), wrongContext.getMessage());
                    }
                    ByteBuffer host = ByteBuffer.allocateDirect(LENGTH);
                    try (DeviceStream stream = runtime.newStream(READER_DEVICE)) {
                        stream.copyToHost(imported, 0, host);
                    }
                    assertEquals(-1, Patterns.firstMismatch(Patterns.bytes(SEED + i, LENGTH), Patterns.toArray(host.flip())));
                }
            }
            assertEquals(3L * LENGTH, runtime.bytesCopied(CopyRoute.PEER_DEVICE_TO_HOST), "the exporter GPU's D->H over its own PCIe link");
            assertEquals(0, runtime.bytesCopied(CopyRoute.DEVICE_TO_HOST), "not this GPU's link");
            assertEquals(0, runtime.bytesCopied(CopyRoute.PEER), "no peer copy");
            assertEquals(3L * LENGTH, runtime.hostLinkBytes());
            assertEquals(1, runtime.ipcMappings().opened());
            exporter.send("CLOSE");
            assertEquals("CLOSED", exporter.nextLine(60, TimeUnit.SECONDS));
        }
    }

    @Test
    void aRefusedPeerPairGivesItsReasonOnceAndCopiesNothing()
            throws Exception
    {
        try (ChildJvm exporter = ChildJvm.start(PeerExporterChild.class, "simulated", String.valueOf(EXPORTER_DEVICE), "2", String.valueOf(LENGTH), String.valueOf(SEED));
                DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(readerConfig(false)))) {
            List<IpcHandle> handles = handles(exporter);
            for (IpcHandle handle : handles) {
                try (DeviceBuffer imported = runtime.openIpc(handle, READER_DEVICE);
                        DeviceBuffer landing = runtime.deviceAllocator(READER_DEVICE).allocate(LENGTH)) {
                    PeerCopy copy = runtime.copyFromPeer(imported, landing, PeerLink.NVLINK);
                    assertFalse(copy.copied());
                    assertEquals(0, copy.bytes());
                    assertTrue(copy.refusal().get().contains("device 0 cannot access device 1 as a peer"), copy.refusal().get());
                }
            }
            assertEquals(2, runtime.peerCopyRefusals());
            assertEquals(0, runtime.bytesCopied(CopyRoute.PEER));
            assertEquals(0, runtime.peerBytesCopied(PeerLink.NVLINK));
            assertFalse(runtime.isPeerAccessEnabled(READER_DEVICE, EXPORTER_DEVICE));
            exporter.send("CLOSE");
            assertEquals("CLOSED", exporter.nextLine(60, TimeUnit.SECONDS));
        }
    }

    @Test
    void aPeerCopyWithinOneDeviceIsADeviceLocalCopy()
    {
        try (DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(readerConfig(false)));
                DeviceBuffer source = runtime.deviceAllocator(0).allocate(LENGTH);
                DeviceBuffer target = runtime.deviceAllocator(0).allocate(LENGTH)) {
            try (DeviceStream stream = runtime.newStream(0)) {
                stream.copyFromHost(Patterns.direct(SEED, LENGTH), source, 0);
            }
            PeerCopy copy = runtime.copyFromPeer(source, target, PeerLink.NVLINK);
            assertTrue(copy.copied());
            assertTrue(copy.sameDevice());
            assertEquals(LENGTH, runtime.bytesCopied(CopyRoute.DEVICE_TO_DEVICE));
            assertEquals(0, runtime.peerBytesCopied(PeerLink.NVLINK), "no peer link on one device");
            assertLanded(runtime, target, SEED);
        }
    }

    private static void assertLanded(DeviceRuntime runtime, DeviceBuffer landing, long seed)
    {
        ByteBuffer back = ByteBuffer.allocateDirect(LENGTH);
        try (DeviceStream stream = runtime.newStream(landing.location().device())) {
            stream.copyToHost(landing, 0, back);
        }
        assertEquals(-1, Patterns.firstMismatch(Patterns.bytes(seed, LENGTH), Patterns.toArray(back.flip())));
    }
}
