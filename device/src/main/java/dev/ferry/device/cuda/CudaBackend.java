package dev.ferry.device.cuda;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.conf.ConfigSource;
import dev.ferry.device.DeviceConfigKeys;
import dev.ferry.device.DeviceInfo;
import dev.ferry.device.DeviceRegion;
import dev.ferry.device.IpcHandle;
import dev.ferry.device.ipc.IpcExportLease;
import dev.ferry.device.ipc.IpcImportLease;
import dev.ferry.device.ipc.IpcMappingStats;
import dev.ferry.device.ipc.PeerArenaImports;
import dev.ferry.device.ipc.SharedMemoryFiles;
import dev.ferry.device.memory.DeviceOutOfMemoryException;
import dev.ferry.device.memory.MemoryLocation;
import dev.ferry.device.memory.NativeMemory;
import dev.ferry.device.memory.SubAllocator;
import dev.ferry.device.spi.BackendStream;
import dev.ferry.device.spi.DeviceBackend;
import dev.ferry.device.spi.FileReadEngine;
import dev.ferry.device.spi.HostView;
import dev.ferry.device.spi.IoRegistration;
import org.bytedeco.cuda.cudart.cudaDeviceProp;
import org.bytedeco.cuda.cudart.cudaIpcMemHandle_t;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.Pointer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Real GPUs through {@code org.bytedeco.cuda.global.cudart} and {@code cufile}. Reached only
 * through {@link CudaProbe} after the probe succeeded.
 *
 * <p>Device memory comes from one {@link SubAllocator} per device over {@code cudaMalloc} slabs
 * ({@code spark.ferry.device.pool.slabSize}, up to the memory limit), so a buffer costs no driver
 * call and freeing one never runs {@code cudaFree} (which synchronizes the device). Slabs, not
 * {@code cudaMallocAsync} pools: legacy {@code cudaIpcGetMemHandle} works on {@code cudaMalloc}
 * memory, while exporting from a stream-ordered pool needs a shareable file descriptor passed over
 * a Unix socket ({@code SCM_RIGHTS}), which the JVM cannot do without native code.
 *
 * <p>IPC uses {@code cudaIpcGetMemHandle} on the slab (asked once per slab and kept) plus the
 * buffer's offset in it, and {@code cudaIpcOpenMemHandle}, with the same lease files as the
 * simulated backend: a freed range an importer still maps is parked by the sub-allocator (still
 * counted as used) and reclaimed on a later allocation or under pressure, as on {@code simulated}.
 */
public final class CudaBackend
        implements DeviceBackend
{
    public static final String NAME = "cuda";
    private static final Logger log = LoggerFactory.getLogger(CudaBackend.class);

    private final List<DeviceInfo> devices = new ArrayList<>();
    private final Path leaseDirectory;
    private final CuFileDriver cuFile;
    private final List<SubAllocator<Pointer>> pools = new ArrayList<>();
    // Slab base address -> its IPC handle bytes, asked once per slab; guarded by this.
    private final Map<Long, byte[]> slabHandles = new HashMap<>();
    // Slab base address -> its cuFileBufRegister (or why none), made on the first direct read into the slab.
    private final Map<Long, IoRegistration> slabRegistrations = new HashMap<>();
    // Exporters' slabs mapped here, once per (exporter, slab, importing device).
    private final PeerArenaImports<ImportedSlab> imports = new PeerArenaImports<>(CudaBackend::closeSlab);

    /** The payload of an exported handle: CUDA's handle of the slab, then the buffer's offset in it. */
    static final int IPC_PAYLOAD_SIZE = cudart.CUDA_IPC_HANDLE_SIZE + Long.BYTES;

    public CudaBackend(ConfigSource config)
    {
        int[] count = new int[1];
        CudaErrors.check(cudart.cudaGetDeviceCount(count), "cudaGetDeviceCount");
        for (int device = 0; device < count[0]; device++) {
            cudaDeviceProp properties = new cudaDeviceProp();
            CudaErrors.check(cudart.cudaGetDeviceProperties(properties, device), "cudaGetDeviceProperties(" + device + ")");
            byte[] busId = new byte[64];
            CudaErrors.check(cudart.cudaDeviceGetPCIBusId(busId, busId.length, device), "cudaDeviceGetPCIBusId(" + device + ")");
            devices.add(new DeviceInfo(device, properties.name().getString(), properties.totalGlobalMem(), cString(busId)));
        }
        this.leaseDirectory = SharedMemoryFiles.directory(DeviceConfigKeys.SIMULATED_SHM_DIR.get(config));
        long memoryLimit = DeviceConfigKeys.MEMORY_LIMIT.get(config);
        long slabSize = DeviceConfigKeys.POOL_SLAB_SIZE.get(config);
        for (DeviceInfo device : devices) {
            long capacity = memoryLimit > 0 ? Math.min(memoryLimit, device.totalMemory()) : device.totalMemory();
            pools.add(SubAllocator.growing("CUDA device " + device.ordinal() + " pool", DEVICE_ALIGNMENT, Math.min(slabSize, capacity), capacity, new Slabs(device.ordinal())));
        }
        this.cuFile = CuFileDriver.shared(DeviceConfigKeys.CUFILE_ENABLED.get(config), DeviceConfigKeys.CUFILE_ALLOW_COMPAT_MODE.get(config));
        log.info("CUDA backend: {}; cuFile: {}", devices, cuFile);
    }

    private static String cString(byte[] bytes)
    {
        int length = 0;
        while (length < bytes.length && bytes[length] != 0) {
            length++;
        }
        return new String(bytes, 0, length, StandardCharsets.US_ASCII);
    }

    static CudaMemory cudaMemory(NativeMemory memory)
    {
        if (!(memory instanceof CudaMemory)) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, "Memory " + memory.describe() + " does not belong to the CUDA backend");
        }
        return (CudaMemory) memory;
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

    // Buffers start 4 KiB apart in a slab, which cudaMalloc aligns far more coarsely: O_DIRECT and cuFile get page-aligned targets.
    private static final long DEVICE_ALIGNMENT = 4096;

    /** cudaMalloc/cudaFree of whole slabs on one device; a slab's cuFile registration ends before its cudaFree. */
    private final class Slabs
            implements SubAllocator.SlabSource<Pointer>
    {
        private final int device;

        Slabs(int device)
        {
            this.device = device;
        }

        @Override
        public Pointer allocate(long size)
        {
            CudaErrors.check(cudart.cudaSetDevice(device), "cudaSetDevice(" + device + ")");
            Pointer pointer = new Pointer();
            int status = cudart.cudaMalloc(pointer, size);
            if (status == cudart.cudaErrorMemoryAllocation) {
                throw new DeviceOutOfMemoryException("cudaMalloc of a " + size + "-byte slab on device " + device + " failed: " + CudaErrors.describe(status), size);
            }
            CudaErrors.check(status, "cudaMalloc of a " + size + "-byte slab on device " + device);
            return pointer;
        }

        @Override
        public void free(Pointer slab)
        {
            IoRegistration registration;
            synchronized (slabRegistrations) {
                registration = slabRegistrations.remove(slab.address());
            }
            if (registration != null) {
                registration.deregister();
            }
            CudaErrors.check(cudart.cudaSetDevice(device), "cudaSetDevice(" + device + ")");
            CudaErrors.check(cudart.cudaFree(slab), "cudaFree of a slab at 0x" + Long.toHexString(slab.address()) + " on device " + device);
        }
    }

    @Override
    public NativeMemory allocate(MemoryLocation location, long size)
    {
        Pointer pointer = new Pointer();
        if (location.isDevice()) {
            return CudaMemory.pooled(this, location, pools.get(location.device()).allocate(size));
        }
        int status = cudart.cudaHostAlloc(pointer, size, cudart.cudaHostAllocPortable);
        if (status == cudart.cudaErrorMemoryAllocation) {
            throw new DeviceOutOfMemoryException("cudaHostAlloc of " + size + " bytes failed: " + CudaErrors.describe(status), size);
        }
        CudaErrors.check(status, "cudaHostAlloc of " + size + " bytes");
        return new CudaMemory(this, CudaMemory.Kind.PINNED, location, pointer, 0, size, Optional.empty());
    }

    void free(CudaMemory memory)
    {
        if (memory.kind() == CudaMemory.Kind.DEVICE) {
            // Parked by the pool while an importer still maps it; reclaimed on a later allocation or under pressure.
            pools.get(memory.location().device()).free(memory.range().orElseThrow(), memory.exportLeases()::tryReleaseAll);
            return;
        }
        release0(memory);
    }

    private void release0(CudaMemory memory)
    {
        switch (memory.kind()) {
            case DEVICE:
                throw new IllegalStateException("Device memory goes back to its pool, not to cudaFree: " + memory.describe());
            case PINNED:
                CudaErrors.check(cudart.cudaFreeHost(memory.base()), "cudaFreeHost of " + memory.describe());
                return;
            case IMPORTED:
                // The block's use of the slab mapping ends; the mapping stays open for the exporter's next block.
                try {
                    memory.releaseImport();
                }
                finally {
                    memory.importLease().ifPresent(IpcImportLease::release);
                }
                return;
        }
        throw new IllegalStateException("Unhandled memory kind " + memory.kind());
    }

    @Override
    public BackendStream createStream(int device)
    {
        return new CudaStream(device);
    }

    @Override
    public boolean canAccessPeer(int device, int peer)
    {
        int[] can = new int[1];
        CudaErrors.check(cudart.cudaDeviceCanAccessPeer(can, device, peer), "cudaDeviceCanAccessPeer(" + device + ", " + peer + ")");
        return can[0] != 0;
    }

    @Override
    public void enablePeerAccess(int device, int peer)
    {
        CudaErrors.check(cudart.cudaSetDevice(device), "cudaSetDevice(" + device + ")");
        int status = cudart.cudaDeviceEnablePeerAccess(peer, 0);
        if (status != cudart.cudaErrorPeerAccessAlreadyEnabled) {
            CudaErrors.check(status, "cudaDeviceEnablePeerAccess(" + peer + ") on device " + device);
        }
    }

    @Override
    public IpcHandle exportIpc(NativeMemory memory, long offset, long length)
    {
        CudaMemory cudaMemory = cudaMemory(memory);
        if (cudaMemory.kind() != CudaMemory.Kind.DEVICE) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Only device memory allocated by this process can be exported, not " + cudaMemory.describe());
        }
        byte[] slabHandle = slabHandle(cudaMemory);
        byte[] payload = ByteBuffer.allocate(IPC_PAYLOAD_SIZE).put(slabHandle).putLong(cudaMemory.baseOffset()).array();
        IpcExportLease lease = IpcExportLease.create(leaseDirectory);
        cudaMemory.exportLeases().add(lease);
        return new IpcHandle(NAME, ProcessHandle.current().pid(), cudaMemory.location().device(), offset, length, lease.path().toString(), payload);
    }

    /** The slab's {@code cudaIpcGetMemHandle}, asked once per slab (the handle names the allocation, not the range). */
    private synchronized byte[] slabHandle(CudaMemory memory)
    {
        byte[] known = slabHandles.get(memory.base().address());
        if (known != null) {
            return known;
        }
        cudaIpcMemHandle_t handle = new cudaIpcMemHandle_t();
        CudaErrors.check(cudart.cudaSetDevice(memory.location().device()), "cudaSetDevice");
        CudaErrors.check(cudart.cudaIpcGetMemHandle(handle, memory.base()), "cudaIpcGetMemHandle of the slab of " + memory.describe());
        byte[] bytes = new byte[cudart.CUDA_IPC_HANDLE_SIZE];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = handle.reserved(i);
        }
        slabHandles.put(memory.base().address(), bytes);
        return bytes;
    }

    /**
     * Imports on the reader's own device: {@code importingDevice} is made current and the slab is
     * opened with {@code cudaIpcOpenMemHandle(cudaIpcMemLazyEnablePeerAccess)}, so no context is
     * created on the exporter's GPU. A slab is opened once per (exporter, slab, importing device)
     * and kept ({@link #imports}); each block is an offset into that mapping, and closing a block
     * ends its use, not the mapping (closed when the exporter departs or at close). Never run on
     * multi-GPU hardware.
     */
    @Override
    public NativeMemory openIpc(IpcHandle handle, int importingDevice)
    {
        byte[] payload = handle.payload();
        if (payload.length != IPC_PAYLOAD_SIZE) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Malformed CUDA IPC payload in " + handle + ": " + payload.length + " bytes, expected " + IPC_PAYLOAD_SIZE);
        }
        long slabOffset = ByteBuffer.wrap(payload, cudart.CUDA_IPC_HANDLE_SIZE, Long.BYTES).getLong();
        if (slabOffset < 0 || handle.offset() < 0 || slabOffset + handle.offset() < 0) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Malformed CUDA IPC payload in " + handle + ": negative offset " + slabOffset + " into the exporter's slab");
        }
        IpcImportLease lease = IpcImportLease.acquire(Paths.get(handle.leasePath()), handle.toString());
        PeerArenaImports<ImportedSlab>.Use use = null;
        boolean success = false;
        try {
            use = imports.acquire(handle.exporterPid(), HexFormat.of().formatHex(payload, 0, cudart.CUDA_IPC_HANDLE_SIZE), importingDevice,
                    () -> openSlab(handle, payload, importingDevice));
            CudaMemory memory = CudaMemory.imported(this, MemoryLocation.device(handle.device()), use, slabOffset + handle.offset(), handle.length(), lease);
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

    private static ImportedSlab openSlab(IpcHandle handle, byte[] payload, int importingDevice)
    {
        cudaIpcMemHandle_t cudaHandle = new cudaIpcMemHandle_t();
        for (int i = 0; i < cudart.CUDA_IPC_HANDLE_SIZE; i++) {
            cudaHandle.reserved(i, payload[i]);
        }
        CudaErrors.check(cudart.cudaSetDevice(importingDevice), "cudaSetDevice(" + importingDevice + ")");
        Pointer mapped = new Pointer();
        CudaErrors.check(cudart.cudaIpcOpenMemHandle(mapped, cudaHandle, cudart.cudaIpcMemLazyEnablePeerAccess),
                "cudaIpcOpenMemHandle of " + handle + " on device " + importingDevice);
        return new ImportedSlab(mapped, importingDevice);
    }

    private static void closeSlab(ImportedSlab slab)
    {
        // Called from close loops: a failure is logged, so the other mappings still close.
        int status = cudart.cudaSetDevice(slab.importingDevice());
        if (status == cudart.cudaSuccess) {
            status = cudart.cudaIpcCloseMemHandle(slab.base());
        }
        if (status != cudart.cudaSuccess) {
            log.warn("cudaIpcCloseMemHandle of the mapping at 0x{} on device {} failed: {}", Long.toHexString(slab.base().address()), slab.importingDevice(),
                    CudaErrors.describe(status));
        }
    }

    /** An exporter's slab mapped into the context of {@code importingDevice}. */
    record ImportedSlab(Pointer base, int importingDevice) {}

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

    @Override
    public long pendingIpcReleaseBytes()
    {
        long pending = 0;
        for (SubAllocator<Pointer> pool : pools) {
            pending += pool.pendingBytes();
        }
        return pending;
    }

    @Override
    public long pendingIpcReleaseBytes(int device)
    {
        return pools.get(device).pendingBytes();
    }

    @Override
    public OptionalLong deviceBytesInUse(int device)
    {
        return OptionalLong.of(pools.get(device).usedBytes());
    }

    @Override
    public long reclaimIpcReleases()
    {
        long freed = 0;
        for (SubAllocator<Pointer> pool : pools) {
            freed += pool.reclaim();
        }
        return freed;
    }

    /** Pageable JVM buffers go through pinned staging chunks: the DMA engine reads only locked pages. */
    @Override
    public boolean stagesPageableCopies()
    {
        return true;
    }

    /**
     * Device memory is registered a slab at a time, once (see {@link #slabRegistration}); the
     * buffer's registration is then a view of the slab's, which outlives it. Other memory goes
     * to cuFile as it is.
     */
    @Override
    public IoRegistration registerIoBuffer(NativeMemory memory)
    {
        CudaMemory cudaMemory = cudaMemory(memory);
        if (cudaMemory.kind() != CudaMemory.Kind.DEVICE) {
            return cuFile.registerBuffer(cudaMemory);
        }
        IoRegistration slab = slabRegistration(cudaMemory);
        return slab.registered()
                ? IoRegistration.registered("covered by the slab's " + slab.detail(), () -> {})
                : IoRegistration.none(slab.detail());
    }

    /** The cuFile registration of the slab {@code memory} lies in, made on first use and kept until the slab is freed (a refusal is kept too, not retried per read). */
    IoRegistration slabRegistration(CudaMemory memory)
    {
        synchronized (slabRegistrations) {
            return slabRegistrations.computeIfAbsent(memory.base().address(),
                    base -> cuFile.registerSlab(memory.base(), memory.range().orElseThrow().slabSize(), memory.location().device()));
        }
    }

    /** Page-locked memory from {@code cudaHostAlloc(cudaHostAllocPortable)}: the DMA engine reads it directly. */
    @Override
    public HostView hostView(NativeMemory memory)
    {
        CudaMemory cudaMemory = cudaMemory(memory);
        if (cudaMemory.kind() != CudaMemory.Kind.PINNED) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, "Only pinned host memory has a host view, not " + cudaMemory.describe());
        }
        return new HostView(HostPointers.view(cudaMemory.at(0), cudaMemory.size()), OptionalLong.of(cudaMemory.address(0)), true,
                "cuda backend: page-locked memory from cudaHostAlloc(cudaHostAllocPortable)");
    }

    /**
     * Only {@code cudaMalloc} memory of this process: an IPC mapping is the exporter's allocation,
     * and {@code nvidia_peermem} pins pages of the owning context. Sets
     * {@code CU_POINTER_ATTRIBUTE_SYNC_MEMOPS} on the allocation first, as NVIDIA's GPUDirect RDMA
     * guide (and perftest) do, so a synchronous {@code cudaMemcpy} into it has landed before a
     * peer's READ can see the bytes.
     */
    @Override
    public OptionalLong nicAddress(NativeMemory memory)
    {
        CudaMemory cudaMemory = cudaMemory(memory);
        if (cudaMemory.kind() != CudaMemory.Kind.DEVICE) {
            return OptionalLong.empty();
        }
        CudaErrors.check(cudart.cudaSetDevice(cudaMemory.location().device()), "cudaSetDevice(" + cudaMemory.location().device() + ")");
        try (IntPointer enabled = new IntPointer(new int[] {1})) {
            int result = cudart.cuPointerSetAttribute(enabled, cudart.CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, cudaMemory.address(0));
            if (result != cudart.CUDA_SUCCESS) {
                // A driver API call: the status is a CUresult, which cudaGetErrorString does not describe.
                throw new FerryException(ErrorCategory.EXTERNAL, "cuPointerSetAttribute(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS) of " + cudaMemory.describe() + " failed: CUresult " + result);
            }
        }
        return OptionalLong.of(cudaMemory.address(0));
    }

    /**
     * Device memory of the pool lies in a {@code cudaMalloc} slab: the slab's pointer is the key and
     * the address a NIC registers (with {@code CU_POINTER_ATTRIBUTE_SYNC_MEMOPS} set on the
     * allocation, as {@link #nicAddress} does); a release hook runs before the pool gives the slab
     * back ({@code cudaFree}). Never run on hardware.
     */
    @Override
    public Optional<DeviceRegion> region(NativeMemory memory)
    {
        CudaMemory cudaMemory = cudaMemory(memory);
        if (cudaMemory.kind() != CudaMemory.Kind.DEVICE || cudaMemory.range().isEmpty()) {
            return Optional.empty();
        }
        SubAllocator.Allocation<Pointer> range = cudaMemory.range().get();
        // Sets SYNC_MEMOPS on the slab's allocation (the attribute is per allocation, whichever pointer into it names it).
        nicAddress(memory);
        return Optional.of(new DeviceRegion(range.slab(), cudaMemory.location().device(), range.slabSize(), range.offset(), Optional.empty(),
                OptionalLong.of(range.slab().address()), range::onSlabReleased));
    }

    @Override
    public FileReadEngine openFile(Path path)
    {
        return cuFile.openFile(this, path);
    }

    @Override
    public void close()
    {
        imports.close();
        // Each pool reclaims what it can and frees its empty slabs; slabs importers still map stay (and are logged).
        for (SubAllocator<Pointer> pool : pools) {
            pool.close();
        }
        // The cuFile driver stays open for the process (see CuFileDriver.shared).
    }
}
