package dev.ferry.device.host;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.device.DeviceInfo;
import dev.ferry.device.IpcHandle;
import dev.ferry.device.cufile.ReadPath;
import dev.ferry.device.cufile.ReadPathVerdict;
import dev.ferry.device.memory.MemoryLocation;
import dev.ferry.device.memory.NativeMemory;
import dev.ferry.device.spi.BackendStream;
import dev.ferry.device.spi.DeviceBackend;
import dev.ferry.device.spi.FileReadEngine;
import dev.ferry.device.spi.HostView;
import dev.ferry.device.spi.IoRegistration;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * No GPU. One pseudo-device whose "device memory" is host memory, so code written against the
 * device contract runs unchanged; routes that need a GPU (peer copies, IPC, direct storage reads)
 * are refused or reported as the POSIX path.
 */
public final class HostBackend
        implements DeviceBackend
{
    public static final String NAME = "host";

    private final List<DeviceInfo> devices;

    public HostBackend(long capacity)
    {
        this.devices = List.of(new DeviceInfo(0, "host memory (no GPU)", capacity, "none"));
    }

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public List<DeviceInfo> devices()
    {
        return devices;
    }

    @Override
    public NativeMemory allocate(MemoryLocation location, long size)
    {
        return HostMemory.allocate(location, size);
    }

    /**
     * Not page-locked: this backend has no GPU, so no DMA engine ever reads the memory and locking
     * pages would only take RAM from the OS; "pinned" memory is an ordinary page-aligned direct buffer.
     */
    @Override
    public HostView hostView(NativeMemory memory)
    {
        return HostMemory.unlockedView(memory, "host backend: ordinary direct memory, not page-locked (no GPU DMA reads it, so locking pages would only take RAM from the OS)");
    }

    @Override
    public BackendStream createStream(int device)
    {
        return new ByteBufferStream(CopyShaper.NONE);
    }

    @Override
    public boolean canAccessPeer(int device, int peer)
    {
        return false;
    }

    @Override
    public void enablePeerAccess(int device, int peer)
    {
        throw unavailable("peer access");
    }

    @Override
    public IpcHandle exportIpc(NativeMemory memory, long offset, long length)
    {
        throw unavailable("IPC export");
    }

    @Override
    public NativeMemory openIpc(IpcHandle handle, int importingDevice)
    {
        throw unavailable("IPC open");
    }

    @Override
    public IoRegistration registerIoBuffer(NativeMemory memory)
    {
        return IoRegistration.none("host backend: no GPU, nothing to register for direct I/O");
    }

    @Override
    public FileReadEngine openFile(Path path)
    {
        try {
            return PosixFileEngine.open(path, new ReadPathVerdict(ReadPath.POSIX, "host backend: no GPU, so reads go through the page cache"));
        }
        catch (IOException e) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Cannot open file " + path + " for device reads: " + e, e);
        }
    }

    private static FerryException unavailable(String what)
    {
        return new FerryException(ErrorCategory.USER_ERROR, what + " is unavailable on the host backend (spark.ferry.device=host): it needs a GPU; "
                + "device buffers here are private host memory of this JVM. Use spark.ferry.device=cuda or simulated");
    }

    @Override
    public void close() {}
}
