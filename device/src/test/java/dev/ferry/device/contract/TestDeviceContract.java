package dev.ferry.device.contract;

import com.sun.nio.file.ExtendedOpenOption;
import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.device.CopyRoute;
import dev.ferry.device.DeviceEvent;
import dev.ferry.device.DeviceMemoryExport;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.IpcHandle;
import dev.ferry.device.PeerCopy;
import dev.ferry.device.PeerLink;
import dev.ferry.device.cufile.DeviceFile;
import dev.ferry.device.cufile.FileReadRequest;
import dev.ferry.device.cufile.IoBufferRegistration;
import dev.ferry.device.cufile.ReadPath;
import dev.ferry.device.memory.BufferAllocator;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.device.memory.DeviceOutOfMemoryException;
import dev.ferry.device.pool.DeviceMemoryPool;
import dev.ferry.device.pool.LocalSpillDirectory;
import dev.ferry.device.pool.StorageTier;
import dev.ferry.device.pool.StoredBlock;
import dev.ferry.device.pool.TierMetrics;
import dev.ferry.device.pool.TieredShuffleStore;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The device contract every backend obeys: simulated and host everywhere, CUDA where a GPU is
 * usable (skipped with the probe's reason elsewhere).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public class TestDeviceContract
{
    private static final int MIB = 1 << 20;

    @TempDir
    Path temp;

    // ---- allocation and limits

    @ContractTest
    public void allocationRespectsLimitsAlongTheChain(BackendUnderTest backend)
    {
        try (DeviceRuntime runtime = backend.open()) {
            BufferAllocator root = runtime.deviceAllocator(0);
            assertEquals(Math.min(BackendUnderTest.CAPACITY, runtime.devices().get(0).totalMemory()), root.limit());
            try (BufferAllocator task = root.newChildAllocator("task-7", MIB)) {
                try (DeviceBuffer first = task.allocate(MIB / 2)) {
                    assertEquals(MIB / 2, first.length());
                    assertEquals(MIB / 2, task.allocatedBytes());
                    assertEquals(MIB / 2, root.allocatedBytes());
                    assertEquals(MIB / 2, task.headroom());
                    DeviceOutOfMemoryException failure = assertThrows(DeviceOutOfMemoryException.class, () -> task.allocate(MIB / 2 + 1));
                    assertTrue(failure.getMessage().contains("allocator 'task-7' limit " + MIB), failure.getMessage());
                    assertTrue(failure.getMessage().contains("exceeds its limit"), failure.getMessage());
                    assertEquals(ErrorCategory.INSUFFICIENT_RESOURCES, failure.category());
                    root.verify();
                }
                assertEquals(0, task.allocatedBytes());
                assertEquals(MIB / 2, task.peakBytes());
            }
            assertEquals(0, root.allocatedBytes());
            DeviceOutOfMemoryException overDevice = assertThrows(DeviceOutOfMemoryException.class, () -> root.allocate(root.limit() + 1));
            assertTrue(overDevice.getMessage().contains(root.name()), overDevice.getMessage());
            assertThrows(IllegalArgumentException.class, () -> root.allocate(0));
            // The whole limit is usable: nothing is lost to bookkeeping.
            try (DeviceBuffer all = root.allocate(root.limit())) {
                assertEquals(root.limit(), all.length());
            }
        }
    }

    @ContractTest
    public void pinnedMemoryHasItsOwnLimit(BackendUnderTest backend)
    {
        try (DeviceRuntime runtime = backend.open(Map.of("spark.ferry.device.pinnedLimit", "1m"))) {
            BufferAllocator pinned = runtime.pinnedAllocator();
            try (DeviceBuffer buffer = pinned.allocate(MIB)) {
                assertFalse(buffer.location().isDevice());
                assertThrows(DeviceOutOfMemoryException.class, () -> pinned.allocate(1));
            }
        }
    }

    // ---- copies

    @ContractTest
    public void copiesInEveryDirectionKeepContent(BackendUnderTest backend)
    {
        int length = 3 * MIB + 123;
        try (DeviceRuntime runtime = backend.open();
                DeviceStream stream = runtime.newStream(0);
                DeviceBuffer device = runtime.deviceAllocator(0).allocate(length);
                DeviceBuffer device2 = runtime.deviceAllocator(0).allocate(length);
                DeviceBuffer pinned = runtime.pinnedAllocator().allocate(length);
                DeviceBuffer pinned2 = runtime.pinnedAllocator().allocate(length)) {
            byte[] expected = Patterns.bytes(1, length);
            // host -> device
            ByteBuffer source = Patterns.direct(1, length);
            stream.copyFromHost(source, device, 0);
            assertFalse(source.hasRemaining());
            // device -> device, device -> pinned, pinned -> pinned, pinned -> device
            stream.copy(device, 0, device2, 0, length);
            stream.copy(device2, 0, pinned, 0, length);
            stream.copy(pinned, 0, pinned2, 0, length);
            stream.copy(pinned2, 0, device, 0, length);
            stream.synchronize();
            // device -> host, checked
            assertArrayEquals(expected, toHost(stream, device, 0, length));
            assertArrayEquals(expected, toHost(stream, pinned, 0, length));
            // heap host buffers work too, at offsets
            ByteBuffer heap = ByteBuffer.wrap(Patterns.bytes(2, 1000));
            stream.copyFromHost(heap, device2, 777);
            stream.copy(device2, 777, device, 5, 1000);
            byte[] window = toHost(stream, device, 5, 1000);
            assertArrayEquals(Patterns.bytes(2, 1000), window);
            assertArrayEquals(Arrays.copyOfRange(expected, 1005, 2000), toHost(stream, device, 1005, 995));
            assertArrayEquals(Arrays.copyOfRange(expected, 0, 5), toHost(stream, device, 0, 5));
        }
    }

    @ContractTest
    public void slicesAndEventsOrderWork(BackendUnderTest backend)
    {
        try (DeviceRuntime runtime = backend.open();
                DeviceStream first = runtime.newStream(0);
                DeviceStream second = runtime.newStream(0);
                DeviceBuffer buffer = runtime.deviceAllocator(0).allocate(MIB);
                DeviceBuffer slice = buffer.slice(4096, 8192)) {
            DeviceEvent start = first.recordEvent();
            first.copyFromHost(Patterns.direct(3, 8192), slice, 0);
            DeviceEvent done = first.recordEvent();
            second.waitFor(done);
            byte[] read = toHost(second, buffer, 4096, 8192);
            assertArrayEquals(Patterns.bytes(3, 8192), read);
            done.synchronize();
            assertTrue(done.isComplete());
            assertTrue(done.millisSince(start) >= 0);
            start.close();
            done.close();
            assertThrows(IllegalStateException.class, done::isComplete);
        }
    }

    // ---- ownership and leaks

    @ContractTest
    public void retainedHandlesKeepMemoryAndTransfersMoveAccounting(BackendUnderTest backend)
    {
        try (DeviceRuntime runtime = backend.open();
                DeviceStream stream = runtime.newStream(0)) {
            BufferAllocator root = runtime.deviceAllocator(0);
            try (BufferAllocator mapTask = root.newChildAllocator("map-task", 2 * MIB);
                    BufferAllocator reader = root.newChildAllocator("reader", MIB)) {
                DeviceBuffer original = mapTask.allocate(MIB);
                stream.copyFromHost(Patterns.direct(4, MIB), original, 0);
                DeviceBuffer retained = original.retain();
                original.close();
                assertEquals(MIB, mapTask.allocatedBytes(), "a retained handle keeps the bytes allocated");
                assertArrayEquals(Patterns.bytes(4, MIB), toHost(stream, retained, 0, MIB));

                assertTrue(retained.transferOwnership(reader));
                assertEquals(0, mapTask.allocatedBytes());
                assertEquals(MIB, reader.allocatedBytes());
                assertEquals("reader", retained.allocator().name());
                try (DeviceBuffer more = mapTask.allocate(MIB)) {
                    // Over the limit the transfer still happens, and says so.
                    assertFalse(more.transferOwnership(reader));
                    assertEquals(2 * MIB, reader.allocatedBytes());
                }
                retained.close();
                assertEquals(0, reader.allocatedBytes());
                root.verify();
            }
            try (DeviceRuntime other = backend.open(); DeviceBuffer foreign = other.deviceAllocator(0).allocate(4096)) {
                IllegalArgumentException crossRoot = assertThrows(IllegalArgumentException.class, () -> foreign.transferOwnership(root));
                assertTrue(crossRoot.getMessage().contains("different roots"), crossRoot.getMessage());
            }
        }
    }

    @ContractTest
    public void closingWithOpenBuffersReportsTheLeak(BackendUnderTest backend)
    {
        DeviceBuffer leaked;
        try (DeviceRuntime runtime = backend.open()) {
            BufferAllocator root = runtime.deviceAllocator(0);
            BufferAllocator task = root.newChildAllocator("leaky-task", MIB);
            leaked = task.allocate(12345);
            IllegalStateException childLeak = assertThrows(IllegalStateException.class, task::close);
            assertTrue(childLeak.getMessage().contains("Memory was leaked by allocator 'leaky-task'"), childLeak.getMessage());
            assertTrue(childLeak.getMessage().contains("12345 bytes"), childLeak.getMessage());
            assertTrue(childLeak.getMessage().contains("allocated here"), "allocation sites are recorded in tests: " + childLeak.getMessage());
            task.close(); // idempotent
            IllegalStateException runtimeLeak = assertThrows(IllegalStateException.class, runtime::close);
            assertTrue(runtimeLeak.getMessage().contains("Memory was leaked by allocator '" + root.name() + "'"), runtimeLeak.getMessage());
        }
        // Closing the leaked handle late is still clean accounting, not a crash.
        leaked.close();
    }

    // ---- bad input on buffers

    @ContractTest
    public void doubleCloseAndUseAfterCloseNameTheBuffer(BackendUnderTest backend)
    {
        try (DeviceRuntime runtime = backend.open(); DeviceStream stream = runtime.newStream(0)) {
            DeviceBuffer buffer = runtime.deviceAllocator(0).allocate(4096);
            String name = buffer.name();
            buffer.close();
            FerryException doubleClose = assertThrows(FerryException.class, buffer::close);
            assertEquals("Double close of " + name, doubleClose.getMessage());
            FerryException useAfterClose = assertThrows(FerryException.class, () -> stream.copyFromHost(ByteBuffer.allocate(16), buffer, 0));
            assertTrue(useAfterClose.getMessage().startsWith("Use after close"), useAfterClose.getMessage());
            assertTrue(useAfterClose.getMessage().contains(name), useAfterClose.getMessage());
            assertThrows(FerryException.class, buffer::retain);
            assertThrows(FerryException.class, () -> buffer.slice(0, 1));
            assertEquals(0, runtime.deviceAllocator(0).allocatedBytes());
        }
    }

    @ContractTest
    public void outOfRangeCopiesAreRefusedBeforeTouchingMemory(BackendUnderTest backend)
    {
        try (DeviceRuntime runtime = backend.open();
                DeviceStream stream = runtime.newStream(0);
                DeviceBuffer small = runtime.deviceAllocator(0).allocate(4096);
                DeviceBuffer large = runtime.deviceAllocator(0).allocate(8192)) {
            stream.copyFromHost(Patterns.direct(5, 4096), small, 0);
            FerryException tooLong = assertThrows(FerryException.class, () -> stream.copy(large, 0, small, 0, 8192));
            assertTrue(tooLong.getMessage().contains("Out of range: cannot copy into [0, +8192) of " + small.name()), tooLong.getMessage());
            assertThrows(FerryException.class, () -> stream.copy(small, -1, large, 0, 10));
            assertThrows(FerryException.class, () -> stream.copy(small, 4000, large, 0, 97));
            assertThrows(FerryException.class, () -> stream.copy(small, Long.MAX_VALUE, large, 0, 2));
            FerryException hostTooBig = assertThrows(FerryException.class, () -> stream.copyToHost(small, 1, ByteBuffer.allocate(4096)));
            assertTrue(hostTooBig.getMessage().contains(small.name()), hostTooBig.getMessage());
            assertThrows(FerryException.class, () -> stream.copyFromHost(ByteBuffer.allocate(4097), small, 0));
            assertThrows(FerryException.class, () -> small.slice(4000, 200));
            FerryException overlap = assertThrows(FerryException.class, () -> stream.copy(large, 0, large, 100, 1000));
            assertTrue(overlap.getMessage().startsWith("Overlapping copy"), overlap.getMessage());
            // Nothing above changed the bytes.
            assertArrayEquals(Patterns.bytes(5, 4096), toHost(stream, small, 0, 4096));
        }
    }

    // ---- peer access

    @ContractTest
    public void peerCopiesNeedPeerAccessEnabledFirst(BackendUnderTest backend)
    {
        try (DeviceRuntime runtime = backend.open()) {
            if (runtime.deviceCount() < 2) {
                assertFalse(runtime.canAccessPeer(0, 0));
                assertThrows(IllegalArgumentException.class, () -> runtime.enablePeerAccess(0, 1));
                assertThrows(IllegalArgumentException.class, () -> runtime.enablePeerAccess(0, 0));
                return;
            }
            Assumptions.assumeTrue(runtime.canAccessPeer(0, 1), "devices 0 and 1 have no peer path");
            try (DeviceStream stream = runtime.newStream(0);
                    DeviceBuffer onZero = runtime.deviceAllocator(0).allocate(2 * MIB);
                    DeviceBuffer onOne = runtime.deviceAllocator(1).allocate(2 * MIB)) {
                stream.copyFromHost(Patterns.direct(6, 2 * MIB), onZero, 0);
                assertFalse(runtime.isPeerAccessEnabled(0, 1));
                FerryException refused = assertThrows(FerryException.class, () -> stream.copy(onZero, 0, onOne, 0, 2 * MIB));
                assertTrue(refused.getMessage().contains("Peer access between device 0 and device 1 is not enabled"), refused.getMessage());
                assertTrue(runtime.enablePeerAccess(0, 1));
                assertFalse(runtime.enablePeerAccess(0, 1), "enabling twice reports it was already enabled");
                assertThrows(IllegalArgumentException.class, () -> runtime.enablePeerAccess(1, 1));
                stream.copy(onZero, 0, onOne, 0, 2 * MIB);
                stream.synchronize();
                assertArrayEquals(Patterns.bytes(6, 2 * MIB), toHost(stream, onOne, 0, 2 * MIB));
            }
        }
    }

    // ---- IPC

    @ContractTest
    public void ipcHandleOpensInAnotherJvmAndKeepsMemoryAliveUntilItCloses(BackendUnderTest backend)
            throws Exception
    {
        int length = 2 * MIB + 4096;
        try (DeviceRuntime runtime = backend.open(); DeviceStream stream = runtime.newStream(0)) {
            DeviceBuffer buffer = runtime.deviceAllocator(0).allocate(length);
            if (backend == BackendUnderTest.HOST) {
                FerryException unavailable = assertThrows(FerryException.class, () -> runtime.exportIpc(buffer));
                assertTrue(unavailable.getMessage().contains("IPC export is unavailable on the host backend"), unavailable.getMessage());
                buffer.close();
                return;
            }
            stream.copyFromHost(Patterns.direct(7, length), buffer, 0);
            stream.synchronize();
            IpcHandle handle = runtime.exportIpc(buffer);
            assertEquals(handle, IpcHandle.fromBytes(handle.toBytes()));
            try (ChildJvm child = ChildJvm.start(IpcChildProcess.class, backend.mode(), handle.toBase64(), "7", "8")) {
                assertEquals("VERIFIED", child.nextLine(60, TimeUnit.SECONDS));
                // The child wrote into the same memory: the parent sees it.
                assertArrayEquals(Patterns.bytes(8, IpcChildProcess.REPLY_LENGTH), toHost(stream, buffer, 0, IpcChildProcess.REPLY_LENGTH));
                buffer.close();
                assertEquals(0, runtime.deviceAllocator(0).allocatedBytes());
                assertTrue(runtime.pendingIpcReleaseBytes() >= length, "the importer still holds the memory");
                assertEquals(0, runtime.reclaimIpcReleases());
                child.send("CLOSE");
                assertEquals("CLOSED", child.nextLine(60, TimeUnit.SECONDS));
                assertEquals(0, child.waitFor(60, TimeUnit.SECONDS), child.stderrText());
            }
            assertTrue(runtime.reclaimIpcReleases() >= length);
            assertEquals(0, runtime.pendingIpcReleaseBytes());
            // The freed range is usable again: the whole device can be allocated.
            try (DeviceBuffer all = runtime.deviceAllocator(0).allocate(runtime.deviceAllocator(0).limit())) {
                assertTrue(all.isOpen());
            }
        }
    }

    /**
     * The reader's side of CUDA IPC as the shuffle uses it: every block of one exporter arena
     * (cuda: slab) is imported on the reader's own device, through one mapping opened once and
     * kept; a peer copy into a buffer of that device lands every byte (on one GPU it is a
     * device-local copy out of the mapping), and a host read of the import is the exporter GPU's
     * D->H. On cuda this is cudaIpcOpenMemHandle on the reader's context and async copies from it.
     */
    @ContractTest
    public void ipcImportsOnTheReadersDeviceShareOneMappingAndCopyOut(BackendUnderTest backend)
            throws Exception
    {
        Assumptions.assumeTrue(backend != BackendUnderTest.HOST, "the host backend has no IPC");
        int blocks = 4;
        int length = 48 * 1024;
        try (DeviceRuntime runtime = backend.open();
                ChildJvm exporter = ChildJvm.start(PeerExporterChild.class, backend.mode(), "0", String.valueOf(blocks), String.valueOf(length), "5100")) {
            List<IpcHandle> handles = new ArrayList<>();
            for (String line = exporter.nextLine(60, TimeUnit.SECONDS); !line.equals("READY"); line = exporter.nextLine(60, TimeUnit.SECONDS)) {
                assertTrue(line.startsWith("HANDLE "), line);
                handles.add(IpcHandle.fromBase64(line.substring("HANDLE ".length())));
            }
            assertEquals(blocks, handles.size());
            for (int i = 0; i < blocks; i++) {
                try (DeviceBuffer imported = runtime.openIpc(handles.get(i), 0);
                        DeviceBuffer landing = runtime.deviceAllocator(0).allocate(length);
                        DeviceStream stream = runtime.newStream(0)) {
                    PeerCopy copy = runtime.copyFromPeer(imported, landing, PeerLink.NVLINK);
                    assertTrue(copy.copied(), copy.refusal().orElse(""));
                    assertArrayEquals(Patterns.bytes(5100 + i, length), toHost(stream, landing, 0, length));
                    ByteBuffer direct = ByteBuffer.allocateDirect(length);
                    stream.copyToHost(imported, 0, direct);
                    assertArrayEquals(Patterns.bytes(5100 + i, length), Patterns.toArray(direct.flip()));
                }
            }
            assertEquals(1, runtime.ipcMappings().opened(), "one exporter arena, imported on one device: one mapping for " + blocks + " blocks");
            assertEquals(blocks - 1, runtime.ipcMappings().reused());
            assertEquals((long) blocks * length, runtime.bytesCopied(CopyRoute.PEER_DEVICE_TO_HOST));
            // What this proved, for gpu-check's report: on one GPU the peer copy is device-local, no NVLink or PCIe P2P was crossed.
            System.out.println("IPC on the reader's device (" + backend.mode() + "): " + blocks + " blocks through " + runtime.ipcMappings().opened() + " kept mapping; copyFromPeer "
                    + (runtime.bytesCopied(CopyRoute.PEER) > 0 ? runtime.bytesCopied(CopyRoute.PEER) + " bytes GPU to GPU" : runtime.bytesCopied(CopyRoute.DEVICE_TO_DEVICE) + " bytes device-local (exporter and reader on one GPU: no peer link exercised)")
                    + ", " + runtime.bytesCopied(CopyRoute.PEER_DEVICE_TO_HOST) + " bytes exporter-GPU D->H");
            exporter.send("CLOSE");
            assertEquals("CLOSED", exporter.nextLine(60, TimeUnit.SECONDS));
        }
    }

    @ContractTest
    public void ipcHandlesAreRefusedInTheExportingProcessAndWhenMalformed(BackendUnderTest backend)
            throws Exception
    {
        try (DeviceRuntime runtime = backend.open(); DeviceBuffer buffer = runtime.deviceAllocator(0).allocate(8192)) {
            FerryException malformed = assertThrows(FerryException.class, () -> IpcHandle.fromBytes(new byte[] {1, 2, 3}));
            assertTrue(malformed.getMessage().startsWith("Malformed IPC handle"), malformed.getMessage());
            IpcHandle foreignBackend = new IpcHandle("other", 1, 0, 0, 8192, "/nonexistent", new byte[0]);
            FerryException wrongBackend = assertThrows(FerryException.class, () -> runtime.openIpc(foreignBackend, 0));
            assertTrue(wrongBackend.getMessage().contains("exported by backend other"), wrongBackend.getMessage());
            if (backend == BackendUnderTest.HOST) {
                return;
            }
            IpcHandle handle = runtime.exportIpc(buffer);
            FerryException sameProcess = assertThrows(FerryException.class, () -> runtime.openIpc(handle, 0));
            assertTrue(sameProcess.getMessage().contains("in the process that exported it (pid " + ProcessHandle.current().pid() + ")"), sameProcess.getMessage());
            // A handle from another live process whose export was released (its lease file is gone).
            long otherLivePid = ProcessHandle.current().parent().orElseThrow().pid();
            String noSuchLease = Paths.get(handle.leasePath()).resolveSibling("ferry-ipc-lease-" + otherLivePid + "-" + "0".repeat(32)).toString();
            IpcHandle released = new IpcHandle(handle.backend(), otherLivePid, 0, 0, 8192, noSuchLease, handle.payload());
            FerryException gone = assertThrows(FerryException.class, () -> runtime.openIpc(released, 0));
            assertTrue(gone.getMessage().contains("already released"), gone.getMessage());
            if (backend == BackendUnderTest.SIMULATED) {
                // Paths in a handle come off the wire: a file outside the backend's shared directory, or one others may read, is never mapped.
                Path outside = Files.createFile(temp.resolve("ferry-ipc-lease-" + otherLivePid + "-" + "1".repeat(32)));
                IpcHandle elsewhere = new IpcHandle(handle.backend(), otherLivePid, 0, 0, 8192, outside.toString(), handle.payload());
                FerryException refused = assertThrows(FerryException.class, () -> runtime.openIpc(elsewhere, 0));
                assertTrue(refused.getMessage().contains("not a Ferry file directly in"), refused.getMessage());
                Path readable = Files.createFile(Paths.get(noSuchLease).resolveSibling("ferry-ipc-lease-" + otherLivePid + "-" + "2".repeat(32)));
                try {
                    Files.setPosixFilePermissions(readable, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
                    IpcHandle open = new IpcHandle(handle.backend(), otherLivePid, 0, 0, 8192, readable.toString(), handle.payload());
                    FerryException mode = assertThrows(FerryException.class, () -> runtime.openIpc(open, 0));
                    assertTrue(mode.getMessage().contains("mode rw-r--r--"), mode.getMessage());
                }
                finally {
                    Files.deleteIfExists(readable);
                }
            }
            // A handle whose exporting process has exited.
            Process exited = new ProcessBuilder(Paths.get(System.getProperty("java.home"), "bin", "java").toString(), "-version").redirectErrorStream(true).start();
            exited.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
            assertEquals(0, exited.waitFor());
            IpcHandle orphan = new IpcHandle(handle.backend(), exited.pid(), 0, 0, 8192, handle.leasePath(), handle.payload());
            FerryException dead = assertThrows(FerryException.class, () -> runtime.openIpc(orphan, 0));
            assertTrue(dead.getMessage().contains("(pid " + exited.pid() + ") no longer runs"), dead.getMessage());
        }
    }

    // ---- device file reads

    @ContractTest
    public void fileReadsOfUnalignedRangesKeepContent(BackendUnderTest backend)
            throws IOException
    {
        int size = 3 * MIB + 333;
        byte[] content = Patterns.bytes(9, size);
        Path file = Files.write(temp.resolve("data.bin"), content);
        try (DeviceRuntime runtime = backend.open();
                DeviceStream stream = runtime.newStream(0);
                DeviceFile deviceFile = runtime.openFile(file);
                DeviceBuffer target = runtime.deviceAllocator(0).allocate(2 * MIB)) {
            assertEquals(size, deviceFile.size());
            ReadPath expectedPath = expectedPath(backend, file);
            if (expectedPath != null) {
                assertEquals(expectedPath, deviceFile.verdict().path(), deviceFile.verdict().reason());
            }
            assertEquals(1, runtime.filesOpened(deviceFile.verdict().path()));
            long[][] ranges = {{0, 4096, 0}, {1, 7777, 3}, {5000, 123456, 8191}, {size - 1000, 1000, 100}, {size - 70000, 70000, 0}, {4096, MIB, 4096}};
            for (long[] range : ranges) {
                deviceFile.read(range[0], range[1], target, range[2]);
                byte[] expected = Arrays.copyOfRange(content, (int) range[0], (int) (range[0] + range[1]));
                assertArrayEquals(expected, toHost(stream, target, range[2], (int) range[1]), "range " + Arrays.toString(range));
            }
            try (DeviceBuffer pinned = runtime.pinnedAllocator().allocate(MIB)) {
                deviceFile.read(12345, 54321, pinned, 17);
                assertArrayEquals(Arrays.copyOfRange(content, 12345, 12345 + 54321), toHost(stream, pinned, 17, 54321));
            }
            List<FileReadRequest> batch = new ArrayList<>();
            batch.add(new FileReadRequest(0, 65536, target, 0));
            batch.add(new FileReadRequest(65536 + 10, 999, target, 70000));
            batch.add(new FileReadRequest(MIB, 8192, target, 131072));
            deviceFile.readBatch(batch);
            assertArrayEquals(Arrays.copyOfRange(content, 0, 65536), toHost(stream, target, 0, 65536));
            assertArrayEquals(Arrays.copyOfRange(content, 65546, 65546 + 999), toHost(stream, target, 70000, 999));
            assertArrayEquals(Arrays.copyOfRange(content, MIB, MIB + 8192), toHost(stream, target, 131072, 8192));
            assertEquals(0, runtime.deviceAllocator(0).allocatedBytes() - target.length(), "bounce buffers are released");
            if (deviceFile.verdict().path() != ReadPath.POSIX && backend == BackendUnderTest.CUDA) {
                // cuFile takes unaligned ranges itself: no second device buffer and on-device copy per piece.
                assertEquals(0, deviceFile.bounceReads(), deviceFile.verdict().reason());
            }
            if (deviceFile.verdict().path() == ReadPath.TRUE_DIRECT && backend == BackendUnderTest.SIMULATED) {
                // O_DIRECT itself needs alignment: the unaligned ranges went through the aligned superset.
                assertTrue(deviceFile.bounceReads() > 0);
            }
        }
    }

    @ContractTest
    public void registeredBuffersStayAliveUntilDeregisteredAndTakeDirectReads(BackendUnderTest backend)
            throws IOException
    {
        byte[] content = Patterns.bytes(12, 64 * 1024);
        Path file = Files.write(temp.resolve("registered.bin"), content);
        try (DeviceRuntime runtime = backend.open();
                DeviceStream stream = runtime.newStream(0);
                DeviceFile deviceFile = runtime.openFile(file)) {
            DeviceBuffer buffer = runtime.deviceAllocator(0).allocate(64 * 1024);
            IoBufferRegistration registration = runtime.registerForDirectReads(buffer);
            assertEquals(backend == BackendUnderTest.SIMULATED || backend == BackendUnderTest.CUDA && registration.registered(), registration.registered(), registration.detail());
            buffer.close();
            assertEquals(64 * 1024, runtime.deviceAllocator(0).allocatedBytes(), "the registration keeps the buffer");
            registration.close();
            assertEquals(0, runtime.deviceAllocator(0).allocatedBytes());
            FerryException twice = assertThrows(FerryException.class, registration::close);
            assertTrue(twice.getMessage().startsWith("Double close of the direct-I/O registration"), twice.getMessage());
            assertThrows(FerryException.class, () -> runtime.registerForDirectReads(buffer));

            try (DeviceBuffer target = runtime.deviceAllocator(0).allocate(64 * 1024);
                    IoBufferRegistration ignored = runtime.registerForDirectReads(target)) {
                deviceFile.readAligned(0, 64 * 1024, target, 0);
                assertArrayEquals(content, toHost(stream, target, 0, 64 * 1024));
            }
        }
    }

    // ---- device addresses for NIC registration (GPUDirect RDMA)

    @ContractTest
    public void rdmaExportsAreOnlyForCudaDeviceMemoryAndHoldTheBuffer(BackendUnderTest backend)
    {
        try (DeviceRuntime runtime = backend.open()) {
            BufferAllocator root = runtime.deviceAllocator(0);
            try (DeviceBuffer pinned = runtime.pinnedAllocator().allocate(4096)) {
                FerryException notDevice = assertThrows(FerryException.class, () -> runtime.exportForRdma(pinned));
                assertTrue(notDevice.getMessage().contains(pinned.name()) && notDevice.getMessage().contains("not device memory"), notDevice.getMessage());
                assertEquals(1, pinned.ledger().openHandles(), "a refused export holds nothing");
            }
            DeviceBuffer buffer = root.allocate(MIB);
            if (backend != BackendUnderTest.CUDA) {
                FerryException refused = assertThrows(FerryException.class, () -> runtime.exportForRdma(buffer));
                assertEquals(ErrorCategory.USER_ERROR, refused.category());
                assertTrue(refused.getMessage().contains(buffer.name()), refused.getMessage());
                assertTrue(refused.getMessage().contains("backend '" + backend.mode() + "' has no device address a NIC can register"), refused.getMessage());
                assertEquals(1, buffer.ledger().openHandles(), "a refused export holds nothing");
                buffer.close();
                assertEquals(0, root.allocatedBytes());
            }
            else {
                DeviceMemoryExport export = runtime.exportForRdma(buffer);
                assertNotEquals(0, export.address());
                assertEquals(MIB, export.length());
                assertEquals(0, export.device());
                assertEquals("cuda", export.backendName());
                try (DeviceBuffer slice = buffer.slice(4096, 8192); DeviceMemoryExport sliceExport = runtime.exportForRdma(slice)) {
                    assertEquals(export.address() + 4096, sliceExport.address(), "a slice's address is its offset into the allocation");
                    assertEquals(8192, sliceExport.length());
                }
                buffer.close();
                assertEquals(MIB, root.allocatedBytes(), "the export keeps the memory allocated");
                export.close();
                assertEquals(0, root.allocatedBytes());
                FerryException twice = assertThrows(FerryException.class, export::close);
                assertTrue(twice.getMessage().startsWith("Double close of the RDMA export"), twice.getMessage());
                FerryException afterClose = assertThrows(FerryException.class, export::address);
                assertTrue(afterClose.getMessage().startsWith("Use after close"), afterClose.getMessage());
            }
            FerryException closed = assertThrows(FerryException.class, () -> runtime.exportForRdma(buffer));
            assertTrue(closed.getMessage().startsWith("Use after close") && closed.getMessage().contains(buffer.name()), closed.getMessage());
        }
    }

    @ContractTest
    public void directReadFallbackIsReportedWhereTheFilesystemRefusesODirect(BackendUnderTest backend)
            throws IOException
    {
        // tmpfs refuses O_DIRECT on older kernels, procfs everywhere; use the first that refuses it here.
        Path shmFile = null;
        if (Files.isDirectory(Paths.get("/dev/shm")) && Files.isWritable(Paths.get("/dev/shm"))) {
            shmFile = Files.createTempFile(Paths.get("/dev/shm"), "ferry-test-", ".bin");
            Files.write(shmFile, Patterns.bytes(10, 10000));
        }
        try {
            Path refusing = null;
            for (Path candidate : new Path[] {shmFile, Paths.get("/proc/self/status")}) {
                if (candidate != null && Files.isReadable(candidate) && !supportsODirect(candidate)) {
                    refusing = candidate;
                    break;
                }
            }
            Assumptions.assumeTrue(refusing != null, "no filesystem here refuses O_DIRECT");
            try (DeviceRuntime runtime = backend.open();
                    DeviceStream stream = runtime.newStream(0);
                    DeviceFile deviceFile = runtime.openFile(refusing);
                    DeviceBuffer target = runtime.deviceAllocator(0).allocate(16384)) {
                if (backend != BackendUnderTest.CUDA) {
                    assertEquals(ReadPath.POSIX, deviceFile.verdict().path(), deviceFile.verdict().toString());
                    assertEquals(1, runtime.filesOpened(ReadPath.POSIX));
                }
                else {
                    assertNotEquals(ReadPath.TRUE_DIRECT, deviceFile.verdict().path(), deviceFile.verdict().toString());
                }
                if (backend == BackendUnderTest.SIMULATED) {
                    assertTrue(deviceFile.verdict().reason().contains("O_DIRECT open refused"), deviceFile.verdict().reason());
                }
                if (refusing.equals(shmFile)) {
                    deviceFile.read(3, 9000, target, 5);
                    assertArrayEquals(Arrays.copyOfRange(Patterns.bytes(10, 10000), 3, 9003), toHost(stream, target, 5, 9000));
                }
            }
        }
        finally {
            if (shmFile != null) {
                Files.deleteIfExists(shmFile);
            }
        }
    }

    @ContractTest
    public void badFileReadsNameTheFileAndOffset(BackendUnderTest backend)
            throws IOException
    {
        Path file = Files.write(temp.resolve("shrinking.bin"), Patterns.bytes(11, 256 * 1024));
        try (DeviceRuntime runtime = backend.open();
                DeviceStream stream = runtime.newStream(0);
                DeviceBuffer target = runtime.deviceAllocator(0).allocate(256 * 1024)) {
            FerryException missing = assertThrows(FerryException.class, () -> runtime.openFile(temp.resolve("missing.bin")));
            assertTrue(missing.getMessage().contains("missing.bin"), missing.getMessage());

            try (DeviceFile deviceFile = runtime.openFile(file);
                    FileChannel writer = FileChannel.open(file, StandardOpenOption.WRITE)) {
                FerryException misaligned = assertThrows(FerryException.class, () -> deviceFile.readAligned(1, 4096, target, 0));
                assertTrue(misaligned.getMessage().startsWith("Misaligned direct read of file " + file + ": file offset 1, length 4096"), misaligned.getMessage());
                assertThrows(FerryException.class, () -> deviceFile.readAligned(0, 4095, target, 0));
                deviceFile.readAligned(0, 8192, target, 0);
                assertArrayEquals(Arrays.copyOfRange(Patterns.bytes(11, 256 * 1024), 0, 8192), toHost(stream, target, 0, 8192));

                FerryException beyond = assertThrows(FerryException.class, () -> deviceFile.read(200 * 1024, 100 * 1024, target, 0));
                assertTrue(beyond.getMessage().contains("[204800, +102400) lies beyond the end of file " + file), beyond.getMessage());
                FerryException targetTooSmall = assertThrows(FerryException.class, () -> deviceFile.read(0, 4096, target, 256 * 1024 - 100));
                assertTrue(targetTooSmall.getMessage().contains(target.name()), targetTooSmall.getMessage());

                // The file is removed and its content goes away while it is being read.
                deviceFile.read(0, 64 * 1024, target, 0);
                Files.delete(file);
                writer.truncate(100 * 1024);
                FerryException removed = assertThrows(FerryException.class, () -> deviceFile.read(64 * 1024, 64 * 1024, target, 0));
                assertTrue(removed.getMessage().contains("file " + file), removed.getMessage());
                assertTrue(removed.getMessage().contains("65536"), removed.getMessage());
                assertTrue(removed.getMessage().contains("removed"), removed.getMessage());
                // What was read before is intact; nothing partial was reported as success.
                assertArrayEquals(Arrays.copyOfRange(Patterns.bytes(11, 256 * 1024), 0, 64 * 1024), toHost(stream, target, 0, 64 * 1024));
            }
            assertEquals(target.length(), runtime.deviceAllocator(0).allocatedBytes());
        }
    }

    // ---- pool and spilling

    @ContractTest
    public void spillUnderPressureKeepsContentThroughEveryTier(BackendUnderTest backend)
    {
        int block = 256 * 1024;
        try (DeviceRuntime runtime = backend.open();
                DeviceMemoryPool pool = new DeviceMemoryPool(runtime, 0, MIB, 200);
                TieredShuffleStore store = new TieredShuffleStore(runtime, 0, pool, 2 * block, new LocalSpillDirectory(temp.resolve("spill"), 0))) {
            List<StoredBlock> blocks = new ArrayList<>();
            for (int map = 0; map < 12; map++) {
                StoredBlock id = new StoredBlock(1, map, 0, 3, 100 + map % 3);
                store.put(id, ByteBuffer.wrap(Patterns.bytes(map, block)));
                blocks.add(id);
            }
            TierMetrics metrics = store.metrics();
            assertEquals(12, metrics.blocks());
            assertTrue(metrics.deviceBytes() <= MIB, metrics.toString());
            assertEquals(2L * block, metrics.hostBytes(), metrics.toString());
            assertEquals(12L * block, metrics.deviceBytes() + metrics.hostBytes() + metrics.diskBytes(), metrics.toString());
            assertTrue(metrics.spillsToHost() >= 8 && metrics.spillsToDisk() >= 6, metrics.toString());
            assertTrue(pool.spillCount() > 0 && pool.spilledBytes() >= 8L * block);
            assertEquals(StorageTier.DISK, store.tierOf(blocks.get(0)));
            assertEquals(StorageTier.DEVICE, store.tierOf(blocks.get(11)));
            for (int map = 0; map < 12; map++) {
                assertArrayEquals(Patterns.bytes(map, block), Patterns.toArray(store.read(blocks.get(map))), "block " + map);
            }
            // Reload a disk-tier block into device memory, forcing yet another spill.
            try (DeviceBuffer reloaded = store.readToDevice(blocks.get(0)); DeviceStream stream = runtime.newStream(0)) {
                assertArrayEquals(Patterns.bytes(0, block), toHost(stream, reloaded, 0, block));
            }
            assertEquals(4, store.releaseTask(100));
            assertEquals(8, store.releaseStage(3));
            assertEquals(0, store.releaseShuffle(1));
            TierMetrics empty = store.metrics();
            assertEquals(0, empty.deviceBytes() + empty.hostBytes() + empty.diskBytes(), empty.toString());
            assertEquals(0, pool.allocatedBytes());
        }
    }

    @ContractTest
    public void aFullSpillDiskIsAClearErrorAndLosesNothing(BackendUnderTest backend)
    {
        int block = 256 * 1024;
        Path spillDir = temp.resolve("tiny-spill");
        try (DeviceRuntime runtime = backend.open();
                DeviceMemoryPool pool = new DeviceMemoryPool(runtime, 0, MIB, 100);
                TieredShuffleStore store = new TieredShuffleStore(runtime, 0, pool, block, new LocalSpillDirectory(spillDir, block + 1))) {
            int stored = 0;
            FerryException full = null;
            for (int map = 0; map < 20 && full == null; map++) {
                try {
                    store.put(new StoredBlock(2, map, 0, 1, 1), ByteBuffer.wrap(Patterns.bytes(100 + map, block)));
                    stored++;
                }
                catch (FerryException e) {
                    full = e;
                }
            }
            assertTrue(full != null, "the spill directory must fill up");
            assertEquals(ErrorCategory.INSUFFICIENT_RESOURCES, full.category());
            assertTrue(full.getMessage().contains("Spill directory " + spillDir + " is full"), full.getMessage());
            assertTrue(full.getMessage().contains(spillDir.resolve("ferry-spill-2-").toString()), full.getMessage());
            assertEquals(1 + 1 + 4, stored, "one block on disk, one in host memory, four on the device");
            for (int map = 0; map < stored; map++) {
                assertArrayEquals(Patterns.bytes(100 + map, block), Patterns.toArray(store.read(new StoredBlock(2, map, 0, 1, 1))), "block " + map);
            }
            assertNotEquals(0, store.releaseShuffle(2));
        }
    }

    // ---- helpers

    private static ReadPath expectedPath(BackendUnderTest backend, Path file)
    {
        switch (backend) {
            case HOST:
                return ReadPath.POSIX;
            case SIMULATED:
                return supportsODirect(file) ? ReadPath.TRUE_DIRECT : ReadPath.POSIX;
            case CUDA:
                // Whether cuFile takes the direct path depends on the machine; gpu-check reports it.
                return null;
        }
        throw new IllegalStateException();
    }

    private static boolean supportsODirect(Path file)
    {
        try (FileChannel ignored = FileChannel.open(file, StandardOpenOption.READ, ExtendedOpenOption.DIRECT)) {
            return true;
        }
        catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    static byte[] toHost(DeviceStream stream, DeviceBuffer buffer, long offset, int length)
    {
        ByteBuffer host = ByteBuffer.allocateDirect(length);
        stream.copyToHost(buffer, offset, host);
        return Patterns.toArray(host.flip());
    }
}
