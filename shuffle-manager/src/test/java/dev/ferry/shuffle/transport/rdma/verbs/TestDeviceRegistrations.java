package dev.ferry.shuffle.transport.rdma.verbs;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

import dev.ferry.common.FerryException;
import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceInfo;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.IpcHandle;
import dev.ferry.device.cuda.CudaAvailability;
import dev.ferry.device.cuda.CudaProbe;
import dev.ferry.device.host.HostBackend;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.device.memory.MemoryLocation;
import dev.ferry.device.memory.NativeMemory;
import dev.ferry.device.spi.BackendStream;
import dev.ferry.device.spi.DeviceBackend;
import dev.ferry.device.spi.FileReadEngine;
import dev.ferry.device.spi.IoRegistration;
import dev.ferry.shuffle.transport.TestBytes;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.CmFault;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedNicOptions;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedVerbsProvider;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Device-runtime buffers in a protection domain: simulated GPU memory through its bytes (as
 * before), CUDA device memory by device pointer, held until deregistration. The CUDA case runs
 * against a real GPU where one is usable, and against a stand-in backend that lends addresses the
 * same way everywhere, so the lifetime rules are checked without one.
 */
class TestDeviceRegistrations
{
    private static final VerbsSettings SETTINGS = new VerbsSettings(64, 8, 256, 4096, Duration.ofSeconds(10));
    private static final long STAND_IN_ADDRESS = 0x7f00_0000_0000L;

    private static DeviceRuntime runtime(String backend)
    {
        return DeviceRuntime.create(new MapConfigSource(Map.of(
                "spark.ferry.device", backend,
                "spark.ferry.device.simulated.capacity", "8m",
                "spark.ferry.device.memoryLimit", "8m")));
    }

    @Test
    void simulatedGpuMemoryRegistersThroughItsBytesAsBefore()
            throws Exception
    {
        try (DeviceRuntime runtime = runtime("simulated");
                VerbsDevice nic = new SimulatedVerbsProvider(new SimulatedNicOptions(true, 1 << 20, false, CmFault.NONE)).openLoopbackDevice("sim_mlx5_0", SETTINGS);
                DeviceBuffer buffer = runtime.deviceAllocator(0).allocate(10_000)) {
            try (DeviceStream stream = runtime.newStream(0)) {
                stream.copyFromHost(TestBytes.direct(3, 10_000), buffer, 0);
                stream.synchronize();
            }
            Registration registration = DeviceRegistrations.register(runtime, buffer, nic.protectionDomain(), Access.remoteReadable());
            RegistrableMemory memory = registration.memory();
            assertTrue(memory.isDevice());
            assertEquals(0, memory.device());
            assertTrue(memory.pointer().isEmpty(), "simulated GPU memory has no device pointer");
            assertArrayEquals(TestBytes.bytes(3, 10_000), TestBytes.toArray(memory.view().orElseThrow()));
            assertEquals(3, registration.regions().size(), "split at the settings' 4096-byte regions");
            assertEquals(1, buffer.ledger().openHandles(), "the bytes path holds no extra reference, as before");
            registration.deregister();
            assertEquals(10_000, DeviceRegistrations.of(buffer).length());
        }
    }

    @Test
    void devicePointersAreRefusedOnSimulatedAndHostNamingBufferAndBackend()
            throws Exception
    {
        for (String backend : List.of("simulated", "host")) {
            try (DeviceRuntime runtime = runtime(backend)) {
                RecordingDomain domain = new RecordingDomain(1 << 20);
                DeviceBuffer buffer = runtime.deviceAllocator(0).allocate(4096);
                FerryException refused = assertThrows(FerryException.class,
                        () -> DeviceRegistrations.registerDevicePointer(runtime, buffer, domain, Access.remoteReadable()));
                assertTrue(refused.getMessage().contains(buffer.name()), refused.getMessage());
                assertTrue(refused.getMessage().contains("backend '" + backend + "' has no device address a NIC can register"), refused.getMessage());
                assertTrue(domain.registered.isEmpty(), "nothing reached the NIC");
                assertEquals(1, buffer.ledger().openHandles(), "a refused export holds nothing");
                buffer.close();
                assertEquals(0, runtime.deviceAllocator(0).allocatedBytes());
                FerryException closed = assertThrows(FerryException.class, () -> DeviceRegistrations.register(runtime, buffer, domain, Access.remoteReadable()));
                assertTrue(closed.getMessage().startsWith("Use after close"), closed.getMessage());
            }
        }
    }

    @Test
    void devicePointerRegistrationsHoldTheBufferUntilDeregistered()
            throws Exception
    {
        try (DeviceRuntime runtime = new DeviceRuntime(new AddressingBackend(), 0, 1 << 20, false, "stand-in")) {
            // Its memory is JVM-addressable too, so the pointer path is asked for explicitly.
            checkPointerRegistration(runtime, true, OptionalLong.of(STAND_IN_ADDRESS));
        }
    }

    @Test
    void cudaDeviceMemoryIsRegisteredByPointerAndHeldUntilDeregistered()
            throws Exception
    {
        CudaAvailability cuda = CudaProbe.availability();
        Assumptions.assumeTrue(cuda.available(), () -> "CUDA unavailable: " + cuda.reason());
        try (DeviceRuntime runtime = runtime("cuda")) {
            checkPointerRegistration(runtime, false, OptionalLong.empty());
            try (DeviceBuffer buffer = runtime.deviceAllocator(0).allocate(4096)) {
                FerryException bytes = assertThrows(FerryException.class, () -> DeviceRegistrations.of(buffer));
                assertTrue(bytes.getMessage().contains("DeviceRegistrations.register"), bytes.getMessage());
            }
        }
    }

    @Test
    void aFailedRegistrationOrDeregistrationNeverFreesMemoryTheNicMayHold()
            throws Exception
    {
        DeviceRuntime runtime = new DeviceRuntime(new AddressingBackend(), 0, 1 << 20, false, "stand-in");
        DeviceBuffer buffer = runtime.deviceAllocator(0).allocate(8192);
        RecordingDomain refusing = new RecordingDomain(4096);
        refusing.refuseRegistration = true;
        VerbsException refused = assertThrows(VerbsException.class,
                () -> DeviceRegistrations.registerDevicePointer(runtime, buffer, refusing, Access.remoteReadable()));
        assertTrue(refused.getMessage().contains("nvidia_peermem"), refused.getMessage());
        assertEquals(1, buffer.ledger().openHandles(), "a refused registration releases its export");

        RecordingDomain failing = new RecordingDomain(4096);
        failing.failDeregistration = true;
        Registration registration = DeviceRegistrations.registerDevicePointer(runtime, buffer, failing, Access.remoteReadable());
        VerbsException deregistration = assertThrows(VerbsException.class, registration::deregister);
        assertTrue(deregistration.getMessage().contains("stays open"), deregistration.getMessage());
        buffer.close();
        assertEquals(8192, runtime.deviceAllocator(0).allocatedBytes(), "regions that may still be live keep their memory");
        IllegalStateException leak = assertThrows(IllegalStateException.class, runtime::close);
        assertTrue(leak.getMessage().contains("8192 bytes"), "and the runtime reports it: " + leak.getMessage());
    }

    /** Registers a 1 MiB buffer by pointer in 256 KiB regions, then checks addresses and lifetime. */
    private static void checkPointerRegistration(DeviceRuntime runtime, boolean explicitly, OptionalLong expectedAddress)
            throws VerbsException
    {
        int length = 1 << 20;
        RecordingDomain domain = new RecordingDomain(256 << 10);
        DeviceBuffer buffer = runtime.deviceAllocator(0).allocate(length);
        Registration registration = explicitly
                ? DeviceRegistrations.registerDevicePointer(runtime, buffer, domain, Access.remoteReadable())
                : DeviceRegistrations.register(runtime, buffer, domain, Access.remoteReadable());
        RegistrableMemory memory = domain.registered.get(0);
        long pointer = memory.pointer().orElseThrow();
        expectedAddress.ifPresent(expected -> assertEquals(expected, pointer));
        assertEquals(0, memory.device());
        assertEquals(length, memory.length());
        assertTrue(memory.view().isEmpty(), "device memory is never handed to Java as bytes");
        assertEquals(4, registration.regions().size());
        for (MemoryRegion region : registration.regions()) {
            assertEquals(pointer + region.memoryOffset(), region.address(), "each region starts at the device pointer plus its offset");
        }

        buffer.close();
        assertEquals(length, runtime.deviceAllocator(0).allocatedBytes(), "registered memory stays allocated after its buffer closes");
        registration.deregister();
        assertEquals(4, domain.deregistered.size());
        assertEquals(0, runtime.deviceAllocator(0).allocatedBytes(), "deregistration releases the memory");
        assertFalse(registration.isRegistered());
    }

    /** A protection domain that splits like DiSNI's and records what the NIC was asked to do. */
    private static final class RecordingDomain
            implements ProtectionDomain
    {
        final List<RegistrableMemory> registered = new ArrayList<>();
        final List<MemoryRegion> deregistered = new ArrayList<>();
        final int maxRegionBytes;
        boolean refuseRegistration;
        boolean failDeregistration;

        RecordingDomain(int maxRegionBytes)
        {
            this.maxRegionBytes = maxRegionBytes;
        }

        @Override
        public Registration register(RegistrableMemory memory, Set<Access> access)
                throws VerbsException
        {
            if (refuseRegistration) {
                throw new VerbsException("ibv_reg_mr failed for " + memory + ": Bad address (GPU memory needs nvidia_peermem)");
            }
            registered.add(memory);
            long base = memory.pointer().orElseThrow();
            List<MemoryRegion> regions = new ArrayList<>();
            for (RegistrationChunks.Chunk chunk : RegistrationChunks.split(memory.length(), maxRegionBytes)) {
                regions.add(new MemoryRegion(base + chunk.offset(), chunk.length(), 2 * regions.size() + 1, 2 * regions.size() + 2, access, chunk.offset()));
            }
            return new Registration(memory, regions, done -> {
                if (failDeregistration) {
                    throw new VerbsException("ibv_dereg_mr failed: Device or resource busy");
                }
                deregistered.addAll(done);
            });
        }
    }

    /**
     * The host backend, except that its device memory has a device address, as the cuda
     * backend's has: enough to exercise the pointer path and its lifetime without a GPU.
     */
    private static final class AddressingBackend
            implements DeviceBackend
    {
        private final HostBackend host = new HostBackend(8 << 20);

        @Override
        public String name()
        {
            return "addressing";
        }

        @Override
        public List<DeviceInfo> devices()
        {
            return host.devices();
        }

        @Override
        public NativeMemory allocate(MemoryLocation location, long size)
        {
            return host.allocate(location, size);
        }

        @Override
        public OptionalLong nicAddress(NativeMemory memory)
        {
            return OptionalLong.of(STAND_IN_ADDRESS);
        }

        @Override
        public BackendStream createStream(int device)
        {
            return host.createStream(device);
        }

        @Override
        public boolean canAccessPeer(int device, int peer)
        {
            return host.canAccessPeer(device, peer);
        }

        @Override
        public void enablePeerAccess(int device, int peer)
        {
            host.enablePeerAccess(device, peer);
        }

        @Override
        public IpcHandle exportIpc(NativeMemory memory, long offset, long length)
        {
            return host.exportIpc(memory, offset, length);
        }

        @Override
        public NativeMemory openIpc(IpcHandle handle, int importingDevice)
        {
            return host.openIpc(handle, importingDevice);
        }

        @Override
        public long pendingIpcReleaseBytes()
        {
            return host.pendingIpcReleaseBytes();
        }

        @Override
        public long reclaimIpcReleases()
        {
            return host.reclaimIpcReleases();
        }

        @Override
        public IoRegistration registerIoBuffer(NativeMemory memory)
        {
            return host.registerIoBuffer(memory);
        }

        @Override
        public FileReadEngine openFile(Path path)
        {
            return host.openFile(path);
        }

        @Override
        public void close()
        {
            host.close();
        }
    }
}
