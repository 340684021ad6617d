package dev.ferry.device.spi;

import dev.ferry.device.DeviceInfo;
import dev.ferry.device.IpcHandle;
import dev.ferry.device.ipc.IpcMappingStats;
import dev.ferry.device.memory.MemoryLocation;
import dev.ferry.device.memory.NativeMemory;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What a backend (CUDA, simulated, host) provides under {@code DeviceRuntime}. The runtime checks
 * every argument, keeps the accounting and enforces the contract (peer access before peer copies,
 * no IPC open in the exporting process); a backend only does the raw work.
 */
public interface DeviceBackend
        extends AutoCloseable
{
    String name();

    List<DeviceInfo> devices();

    /** Allocates raw memory, or throws {@code DeviceOutOfMemoryException}. */
    NativeMemory allocate(MemoryLocation location, long size);

    BackendStream createStream(int device);

    boolean canAccessPeer(int device, int peer);

    void enablePeerAccess(int device, int peer);

    /** Exports {@code [offset, +length)} of device memory; the memory stays alive while importers hold it. */
    IpcHandle exportIpc(NativeMemory memory, long offset, long length);

    /**
     * Maps a handle exported by another process into the context of {@code importingDevice}, this
     * process's own device (on CUDA: that device current, {@code cudaIpcOpenMemHandle} with
     * {@code cudaIpcMemLazyEnablePeerAccess}; never a context on the exporter's GPU). The memory's
     * {@link NativeMemory#importingDevice()} says which device imported it. An exporter's arena
     * (CUDA: its slab) is mapped once per importing device and kept for later blocks
     * ({@link dev.ferry.device.ipc.PeerArenaImports}); closing the memory ends the block's use,
     * not the mapping.
     */
    NativeMemory openIpc(IpcHandle handle, int importingDevice);

    /** How imports used their arena mappings; none for a backend that maps nothing. */
    default IpcMappingStats ipcMappings()
    {
        return IpcMappingStats.NONE;
    }

    /** Closes the idle arena mappings of exporters that no longer run; returns how many. */
    default int sweepPeerMappings()
    {
        return 0;
    }

    /** The exporting process {@code exporterPid} departed: its arena mappings close (now, or with their last block). Returns how many there were. */
    default int closePeerMappings(long exporterPid)
    {
        return 0;
    }

    /**
     * Bytes freed by their owner but still held by importers in other processes. A backend that
     * exports no IPC handles has none.
     */
    default long pendingIpcReleaseBytes()
    {
        return 0;
    }

    /** Frees what importers have since let go of; returns the bytes freed (none without IPC exports). */
    default long reclaimIpcReleases()
    {
        return 0;
    }

    /** {@link #pendingIpcReleaseBytes()} of one device: freed buffers whose memory importers still hold. */
    default long pendingIpcReleaseBytes(int device)
    {
        return 0;
    }

    /**
     * What the device's memory pool really holds for buffers (live plus held by importers, in
     * requested bytes), for checking the allocator's books against it; empty for a backend whose
     * device memory is not pooled (host).
     */
    default OptionalLong deviceBytesInUse(int device)
    {
        return OptionalLong.empty();
    }

    /**
     * Whether copies from and to ordinary (pageable) JVM buffers go through pinned staging
     * buffers, as a DMA engine needs: true where device memory is across a bus (cuda) or stands in
     * for it (simulated, which follows the real byte path); false on the host backend, whose
     * "device" memory is the host's.
     */
    default boolean stagesPageableCopies()
    {
        return false;
    }

    /** Registers device memory for direct reads (cuFileBufRegister), or says why not. */
    IoRegistration registerIoBuffer(NativeMemory memory);

    /**
     * The allocation {@code memory} was carved from, for registrations made once per region (see
     * {@link dev.ferry.device.DeviceRegion}); empty where the backend has none to offer (then each
     * buffer is registered on its own).
     */
    default Optional<dev.ferry.device.DeviceRegion> region(NativeMemory memory)
    {
        return Optional.empty();
    }

    /**
     * The raw device address of byte 0 of {@code memory}, for registering it with a NIC
     * (GPUDirect RDMA: {@code ibv_reg_mr} on a device pointer through {@code nvidia_peermem}), or
     * empty when this memory has none a NIC could use. Only the CUDA backend's own
     * {@code cudaMalloc} memory has one: simulated and host "device" memory is host memory, and an
     * IPC import belongs to its exporter. The runtime checks the buffer and holds it; the backend
     * only looks the address up (and may prepare the allocation for third-party DMA).
     */
    default OptionalLong nicAddress(NativeMemory memory)
    {
        return OptionalLong.empty();
    }

    /**
     * The host bytes of {@code memory}, which this backend allocated for
     * {@code MemoryLocation.pinnedHost()}. Backends that allocate real page-locked memory
     * ({@code cudaHostAlloc}) say so; backends whose "pinned" memory is an ordinary direct buffer
     * say why in {@link HostView#detail()}. The default refuses: a backend that does not override
     * this has no host view of its pinned memory.
     */
    default HostView hostView(NativeMemory memory)
    {
        throw new UnsupportedOperationException("Backend '" + name() + "' offers no host view of pinned memory " + memory.describe());
    }

    /** Decides the read path for one file (KvikIO AUTO style) and opens it. */
    FileReadEngine openFile(Path path);

    @Override
    void close();
}
