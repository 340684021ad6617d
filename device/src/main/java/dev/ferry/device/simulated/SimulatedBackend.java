package dev.ferry.device.simulated;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.conf.ConfigSource;
import dev.ferry.device.DeviceConfigKeys;
import dev.ferry.device.DeviceInfo;
import dev.ferry.device.DeviceRegion;
import dev.ferry.device.IpcHandle;
import dev.ferry.device.host.ByteBufferStream;
import dev.ferry.device.host.CopyShaper;
import dev.ferry.device.host.HostMemory;
import dev.ferry.device.ipc.IpcExportLease;
import dev.ferry.device.ipc.ArenaMemory;
import dev.ferry.device.ipc.IpcImportLease;
import dev.ferry.device.ipc.IpcMappingStats;
import dev.ferry.device.ipc.PeerArenaImports;
import dev.ferry.device.ipc.SharedArena;
import dev.ferry.device.ipc.SharedMappings;
import dev.ferry.device.ipc.SharedMemoryFiles;
import dev.ferry.device.memory.MemoryLocation;
import dev.ferry.device.memory.NativeMemory;
import dev.ferry.device.spi.BackendStream;
import dev.ferry.device.spi.DeviceBackend;
import dev.ferry.device.spi.FileReadEngine;
import dev.ferry.device.spi.HostView;
import dev.ferry.device.spi.IoRegistration;
import dev.ferry.topology.model.PathClass;
import dev.ferry.topology.model.PciAddress;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Pattern;

import static java.lang.Math.toIntExact;

/**
 * GPUs simulated in shared memory, behaving like CUDA under the device contract: fixed capacity,
 * peer copies only after peer access is enabled, IPC handles that map the same bytes in another
 * JVM (and not in this one), and O_DIRECT file reads into device memory. Copies can be shaped to
 * link bandwidths (off by default).
 */
public final class SimulatedBackend
        implements DeviceBackend
{
    public static final String NAME = "simulated";

    private final List<SharedArena> arenas = new ArrayList<>();
    private final List<DeviceInfo> devices = new ArrayList<>();
    private final Path sharedDirectory;
    /** Files this backend makes: simulated GPU memory and IPC leases, each named with its creator's pid. */
    private static final Pattern ORPHANS = Pattern.compile("(?:ferry-sim-gpu[0-9]{1,2}|ferry-ipc-lease)-(?<pid>[0-9]{1,10})-[0-9a-f]{32}");
    /** The files an IPC handle may name: the same kinds. */
    private static final Pattern IPC_FILES = ORPHANS;

    private final boolean peerAccess;
    private final CopyShaper shaper;
    // One mapping per (exporter, arena file, importing device), kept across blocks; a slice of SharedMappings' mapping of the whole file.
    private final PeerArenaImports<SharedMappings.Slice> imports = new PeerArenaImports<>(SharedMappings.Slice::close);

    public SimulatedBackend(ConfigSource config)
    {
        int count = DeviceConfigKeys.SIMULATED_COUNT.get(config);
        long capacity = DeviceConfigKeys.SIMULATED_CAPACITY.get(config);
        if (count < 1 || count > 64) {
            throw new FerryException(ErrorCategory.USER_ERROR, DeviceConfigKeys.SIMULATED_COUNT.name() + " must be between 1 and 64, got " + count);
        }
        if (capacity < SharedArena.ALIGNMENT || capacity > HostMemory.MAX_SIZE) {
            throw new FerryException(ErrorCategory.USER_ERROR, DeviceConfigKeys.SIMULATED_CAPACITY.name() + " must be between 4k and " + HostMemory.MAX_SIZE + " bytes, got " + capacity);
        }
        this.sharedDirectory = SharedMemoryFiles.directory(DeviceConfigKeys.SIMULATED_SHM_DIR.get(config));
        // A simulated executor killed mid-job leaves its GPU memory and leases in shared memory; the next one cleans up.
        SharedMemoryFiles.sweepOrphans(sharedDirectory, ORPHANS);
        this.peerAccess = DeviceConfigKeys.SIMULATED_PEER_ACCESS.get(config);
        PathClass peerPath = PathClass.parseLevel(DeviceConfigKeys.SIMULATED_PEER_PATH.get(config));
        this.shaper = DeviceConfigKeys.SHAPING_ENABLED.get(config)
                ? new BandwidthShaper(peerPath, DeviceConfigKeys.SHAPING_NVLINK_GBPS.get(config), DeviceConfigKeys.SHAPING_PCIE_GBPS.get(config),
                        DeviceConfigKeys.SHAPING_SYS_GBPS.get(config), DeviceConfigKeys.SHAPING_LOCAL_GBPS.get(config))
                : CopyShaper.NONE;
        List<String> busIds = busIds(DeviceConfigKeys.SIMULATED_BUS_IDS.get(config), count);
        try {
            for (int device = 0; device < count; device++) {
                SharedArena arena = SharedArena.create(MemoryLocation.device(device), "Simulated GPU " + device, capacity, sharedDirectory, "ferry-sim-gpu" + device);
                arenas.add(arena);
                devices.add(new DeviceInfo(device, "Simulated GPU " + device, capacity, busIds.get(device)));
            }
        }
        catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** The configured PCI bus ids (normalized to the sysfs spelling), one per device, or {@code simulated:<ordinal>}. */
    private static List<String> busIds(String configured, int count)
    {
        List<String> ids = new ArrayList<>();
        if (configured.isBlank()) {
            for (int device = 0; device < count; device++) {
                ids.add("simulated:" + device);
            }
            return ids;
        }
        for (String id : configured.split(",")) {
            ids.add(PciAddress.parse(id).toString());
        }
        if (ids.size() != count || ids.stream().distinct().count() != count) {
            throw new FerryException(ErrorCategory.USER_ERROR, DeviceConfigKeys.SIMULATED_BUS_IDS.name() + " must list " + count + " distinct PCI bus ids (one per simulated GPU), got '" + configured + "'");
        }
        return ids;
    }

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public List<DeviceInfo> devices()
    {
        return List.copyOf(devices);
    }

    @Override
    public NativeMemory allocate(MemoryLocation location, long size)
    {
        if (location.isDevice()) {
            return arenas.get(location.device()).allocate(size);
        }
        return HostMemory.allocate(location, size);
    }

    /**
     * Not page-locked: simulated copies are memcpy between JVM buffers, which gain nothing from
     * locked pages, and mlock would hit RLIMIT_MEMLOCK on CI machines; "pinned" memory is an
     * ordinary page-aligned direct buffer, as on the host backend.
     */
    @Override
    public HostView hostView(NativeMemory memory)
    {
        return HostMemory.unlockedView(memory, "simulated backend: ordinary direct memory, not page-locked (simulated copies are memcpy, and mlock would hit RLIMIT_MEMLOCK on CI)");
    }

    @Override
    public BackendStream createStream(int device)
    {
        return new ByteBufferStream(shaper);
    }

    @Override
    public boolean canAccessPeer(int device, int peer)
    {
        return peerAccess && device != peer;
    }

    @Override
    public void enablePeerAccess(int device, int peer)
    {
        // The runtime records the permission; the arenas are reachable from any simulated device.
    }

    @Override
    public IpcHandle exportIpc(NativeMemory memory, long offset, long length)
    {
        if (!(memory instanceof ArenaMemory)) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Only memory allocated by this process can be exported, not " + memory.describe());
        }
        ArenaMemory arenaMemory = (ArenaMemory) memory;
        IpcExportLease lease = IpcExportLease.create(sharedDirectory);
        arenaMemory.exportLeases().add(lease);
        byte[] payload = encodePayload(arenaMemory.arena().file().toString(), arenaMemory.arenaOffset());
        return new IpcHandle(NAME, ProcessHandle.current().pid(), arenaMemory.location().device(), offset, length, lease.path().toString(), payload);
    }

    /**
     * Maps the exporter's arena file once per importing device (kept in {@link #imports}, as the
     * cuda backend keeps a slab's {@code cudaIpcOpenMemHandle}) and hands out the block as a slice
     * of it; the pages are this process's {@link SharedMappings} of the file.
     */
    @Override
    public NativeMemory openIpc(IpcHandle handle, int importingDevice)
    {
        String arenaFile;
        long arenaOffset;
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(handle.payload()))) {
            arenaFile = in.readUTF();
            arenaOffset = in.readLong();
        }
        catch (IOException e) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Malformed simulated IPC payload in " + handle, e);
        }
        // Both paths came off the wire: only this backend's own files in its shared directory, this user's and private, are mapped.
        Path leasePath = SharedMemoryFiles.checkPeerFile(sharedDirectory, handle.leasePath(), IPC_FILES);
        Path arenaPath = SharedMemoryFiles.checkPeerFile(sharedDirectory, arenaFile, IPC_FILES);
        IpcImportLease lease = IpcImportLease.acquire(leasePath, handle.toString());
        PeerArenaImports<SharedMappings.Slice>.Use use = null;
        boolean success = false;
        try {
            long start = arenaOffset + handle.offset();
            if (arenaOffset < 0 || handle.offset() < 0 || start < 0) {
                throw new FerryException(ErrorCategory.USER_ERROR, "Cannot open " + handle + ": negative offset into " + arenaFile);
            }
            use = imports.acquire(handle.exporterPid(), arenaPath.toString(), importingDevice, () -> mapWholeArena(handle, arenaPath));
            ByteBuffer arena = use.mapped().buffer();
            if (start > arena.capacity() - handle.length()) {
                throw new FerryException(ErrorCategory.USER_ERROR, "Cannot open " + handle + ": range [" + start + ", +" + handle.length() + ") lies outside "
                        + arenaFile + " (" + arena.capacity() + " bytes)");
            }
            // The lease, held until close, is what makes the range ours; the mapping outlives the block.
            ImportedMemory memory = new ImportedMemory(MemoryLocation.device(handle.device()), importingDevice,
                    arena.slice(toIntExact(start), toIntExact(handle.length())), use, lease,
                    "IPC import of pid " + handle.exporterPid() + " simulated GPU " + handle.device() + " [" + start + ", +" + handle.length() + ") on device " + importingDevice);
            success = true;
            return memory;
        }
        finally {
            if (!success) {
                if (use != null) {
                    use.close();
                }
                lease.release();
            }
        }
    }

    private static SharedMappings.Slice mapWholeArena(IpcHandle handle, Path arenaPath)
    {
        try {
            return SharedMappings.process().open(arenaPath, handle.exporterPid(), 0, Files.size(arenaPath));
        }
        catch (NoSuchFileException e) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Cannot open " + handle + ": the exporter's device memory " + arenaPath + " is gone", e);
        }
        catch (IllegalArgumentException e) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Cannot open " + handle + ": " + e.getMessage(), e);
        }
        catch (IOException e) {
            throw new FerryException(ErrorCategory.EXTERNAL, "Cannot map " + handle + " from " + arenaPath + ": " + e.getMessage(), e);
        }
    }

    /** Simulated device memory lies in its GPU's one arena: registered whole, released when the arena closes. */
    @Override
    public Optional<DeviceRegion> region(NativeMemory memory)
    {
        if (memory instanceof ArenaMemory arenaMemory && arenaMemory.location().isDevice()) {
            return Optional.of(arenaMemory.arena().region(arenaMemory));
        }
        return Optional.empty();
    }

    @Override
    public IpcMappingStats ipcMappings()
    {
        return imports.stats();
    }

    @Override
    public int sweepPeerMappings()
    {
        return imports.sweep();
    }

    @Override
    public int closePeerMappings(long exporterPid)
    {
        return imports.closePeer(exporterPid);
    }

    private static byte[] encodePayload(String arenaFile, long arenaOffset)
    {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeUTF(arenaFile);
            out.writeLong(arenaOffset);
            out.flush();
            return bytes.toByteArray();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public long pendingIpcReleaseBytes()
    {
        long pending = 0;
        for (SharedArena arena : arenas) {
            pending += arena.pendingBytes();
        }
        return pending;
    }

    @Override
    public long pendingIpcReleaseBytes(int device)
    {
        return arenas.get(device).pendingBytes();
    }

    @Override
    public OptionalLong deviceBytesInUse(int device)
    {
        return OptionalLong.of(arenas.get(device).space().usedBytes());
    }

    /** Like cuda: a pageable JVM buffer is staged through pinned memory, so tests see the real byte path. */
    @Override
    public boolean stagesPageableCopies()
    {
        return true;
    }

    @Override
    public long reclaimIpcReleases()
    {
        long freed = 0;
        for (SharedArena arena : arenas) {
            freed += arena.reclaim();
        }
        return freed;
    }

    @Override
    public IoRegistration registerIoBuffer(NativeMemory memory)
    {
        // The arena is always reachable by O_DIRECT reads; there is no BAR1 to pin.
        return IoRegistration.emulated("simulated GPU: arena memory needs no pinning for direct reads");
    }

    @Override
    public FileReadEngine openFile(Path path)
    {
        return DirectFileEngine.open(path);
    }

    /** How many files fell back from O_DIRECT to POSIX in this JVM. */
    public static long posixFallbacks()
    {
        return DirectFileEngine.POSIX_FALLBACKS.get();
    }

    @Override
    public void close()
    {
        imports.close();
        for (SharedArena arena : arenas) {
            arena.close();
        }
    }
}
