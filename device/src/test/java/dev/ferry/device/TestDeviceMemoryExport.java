package dev.ferry.device;

import dev.ferry.common.FerryException;
import dev.ferry.device.memory.BufferAllocator;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.device.memory.MemoryLocation;
import dev.ferry.device.memory.NativeMemory;
import dev.ferry.device.spi.BackendStream;
import dev.ferry.device.spi.DeviceBackend;
import dev.ferry.device.spi.FileReadEngine;
import dev.ferry.device.spi.IoRegistration;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lifetime rules of {@link DeviceRuntime#exportForRdma} without a GPU: a stand-in backend
 * hands out addresses the way the cuda backend does and records every free, so the test sees
 * exactly when the memory goes back. The contract suite covers the real backends.
 */
class TestDeviceMemoryExport
{
    private static final long BASE = 0x7f00_0000_0000L;

    @Test
    void memoryIsNotFreedWhileAnExportIsOpen()
    {
        AddressingBackend backend = new AddressingBackend();
        try (DeviceRuntime runtime = new DeviceRuntime(backend, 0, 1 << 20, false, "test")) {
            BufferAllocator root = runtime.deviceAllocator(0);
            DeviceBuffer buffer = root.allocate(8192);
            DeviceMemoryExport export = runtime.exportForRdma(buffer);
            assertEquals(BASE, export.address());
            assertEquals(8192, export.length());
            assertEquals("addressing", export.backendName());
            assertEquals(2, buffer.ledger().openHandles(), "the export holds its own reference");

            buffer.close();
            assertTrue(backend.freed.isEmpty(), "the NIC may still DMA into the memory, so it stays allocated");
            assertEquals(8192, root.allocatedBytes());
            assertTrue(export.isOpen());

            export.close();
            assertEquals(1, backend.freed.size(), "closing the export after the buffer frees the memory, once");
            assertEquals(0, root.allocatedBytes());
            assertFalse(export.isOpen());
            FerryException address = assertThrows(FerryException.class, export::address);
            assertTrue(address.getMessage().contains("Use after close") && address.getMessage().contains(export.bufferName()), address.getMessage());
        }
    }

    @Test
    void closingTheExportFirstLeavesTheBufferUsableAndSlicesExportTheirOwnRange()
    {
        AddressingBackend backend = new AddressingBackend();
        try (DeviceRuntime runtime = new DeviceRuntime(backend, 0, 1 << 20, false, "test")) {
            DeviceBuffer buffer = runtime.deviceAllocator(0).allocate(8192);
            try (DeviceBuffer slice = buffer.slice(4096, 100); DeviceMemoryExport export = runtime.exportForRdma(slice)) {
                assertEquals(BASE + 4096, export.address());
                assertEquals(100, export.length());
                assertTrue(export.toString().contains("[4096, +100) of stand-in memory") && export.toString().contains("backend 'addressing'"), export.toString());
            }
            assertTrue(backend.freed.isEmpty());
            assertEquals(1, buffer.ledger().openHandles());
            buffer.close();
            assertEquals(1, backend.freed.size());
        }
    }

    @Test
    void anOpenExportIsReportedAsALeakAtClose()
    {
        AddressingBackend backend = new AddressingBackend();
        DeviceRuntime runtime = new DeviceRuntime(backend, 0, 1 << 20, false, "test");
        DeviceMemoryExport export;
        try (DeviceBuffer buffer = runtime.deviceAllocator(0).allocate(4096)) {
            export = runtime.exportForRdma(buffer);
        }
        IllegalStateException leak = assertThrows(IllegalStateException.class, runtime::close);
        assertTrue(leak.getMessage().contains("4096 bytes"), leak.getMessage());
        assertTrue(backend.freed.isEmpty(), "leaked memory is never freed under a registration");
        export.close();
        assertEquals(1, backend.freed.size());
    }

    @Test
    void memoryWithoutAnAddressIsRefusedAndNothingIsHeld()
    {
        AddressingBackend backend = new AddressingBackend();
        try (DeviceRuntime runtime = new DeviceRuntime(backend, 0, 1 << 20, false, "test");
                DeviceBuffer pinned = runtime.pinnedAllocator().allocate(4096);
                DeviceBuffer whole = runtime.deviceAllocator(0).allocate(4096);
                DeviceBuffer empty = whole.slice(0, 0)) {
            FerryException notDevice = assertThrows(FerryException.class, () -> runtime.exportForRdma(pinned));
            assertTrue(notDevice.getMessage().contains("pinned host memory, not device memory"), notDevice.getMessage());
            FerryException nothing = assertThrows(FerryException.class, () -> runtime.exportForRdma(empty));
            assertTrue(nothing.getMessage().contains("it is empty"), nothing.getMessage());
            backend.refuse = true;
            try (DeviceBuffer buffer = runtime.deviceAllocator(0).allocate(4096)) {
                FerryException refused = assertThrows(FerryException.class, () -> runtime.exportForRdma(buffer));
                assertTrue(refused.getMessage().contains("backend 'addressing' has no device address"), refused.getMessage());
                assertEquals(1, buffer.ledger().openHandles());
            }
        }
    }

    /** Allocates nothing real: memory is a size and an address; frees are recorded. */
    private static final class AddressingBackend
            implements DeviceBackend
    {
        final List<NativeMemory> freed = new ArrayList<>();
        volatile boolean refuse;

        @Override
        public String name()
        {
            return "addressing";
        }

        @Override
        public List<DeviceInfo> devices()
        {
            return List.of(new DeviceInfo(0, "stand-in GPU", 1 << 20, "0000:00:00.0"));
        }

        @Override
        public NativeMemory allocate(MemoryLocation location, long size)
        {
            return new NativeMemory(location, size)
            {
                @Override
                public String describe()
                {
                    return "stand-in memory at 0x" + Long.toHexString(BASE) + " on " + location;
                }

                @Override
                protected void free()
                {
                    freed.add(this);
                }
            };
        }

        @Override
        public OptionalLong nicAddress(NativeMemory memory)
        {
            return refuse ? OptionalLong.empty() : OptionalLong.of(BASE);
        }

        @Override
        public BackendStream createStream(int device)
        {
            throw new UnsupportedOperationException("no streams on the stand-in backend");
        }

        @Override
        public boolean canAccessPeer(int device, int peer)
        {
            return false;
        }

        @Override
        public void enablePeerAccess(int device, int peer)
        {
            throw new UnsupportedOperationException();
        }

        @Override
        public IpcHandle exportIpc(NativeMemory memory, long offset, long length)
        {
            throw new UnsupportedOperationException();
        }

        @Override
        public NativeMemory openIpc(IpcHandle handle, int importingDevice)
        {
            throw new UnsupportedOperationException();
        }

        @Override
        public IoRegistration registerIoBuffer(NativeMemory memory)
        {
            return IoRegistration.none("stand-in backend");
        }

        @Override
        public FileReadEngine openFile(Path path)
        {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {}
    }
}
