package dev.ferry.device.cuda;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.conf.ConfigSource;
import dev.ferry.device.DeviceConfigKeys;
import dev.ferry.device.DeviceInfo;
import dev.ferry.device.IpcHandle;
import dev.ferry.device.ipc.IpcExportLease;
import dev.ferry.device.ipc.IpcImportLease;
import dev.ferry.device.ipc.SharedMemoryFiles;
import dev.ferry.device.memory.DeviceOutOfMemoryException;
import dev.ferry.device.memory.MemoryLocation;
import dev.ferry.device.memory.NativeMemory;
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

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Real GPUs through {@code org.bytedeco.cuda.global.cudart} and {@code cufile}. Reached only
 * through {@link CudaProbe} after the probe succeeded. IPC uses {@code cudaIpcGetMemHandle} /
 * {@code cudaIpcOpenMemHandle}, with the same lease files as the simulated backend so the exporter
 * does not {@code cudaFree} memory an importer still maps.
 */
public final class CudaBackend
        implements DeviceBackend
{
    public static final String NAME = "cuda";
    private static final Logger log = LoggerFactory.getLogger(CudaBackend.class);

    private final List<DeviceInfo> devices = new ArrayList<>();
    private final Path leaseDirectory;
    private final CuFileDriver cuFile;
    private final List<CudaMemory> awaitingImporters = new ArrayList<>();

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

    @Override
    public NativeMemory allocate(MemoryLocation location, long size)
    {
        Pointer pointer = new Pointer();
        if (location.isDevice()) {
            CudaErrors.check(cudart.cudaSetDevice(location.device()), "cudaSetDevice(" + location.device() + ")");
            int status = cudart.cudaMalloc(pointer, size);
            if (status == cudart.cudaErrorMemoryAllocation) {
                throw new DeviceOutOfMemoryException("cudaMalloc of " + size + " bytes on device " + location.device() + " failed: " + CudaErrors.describe(status), size);
            }
            CudaErrors.check(status, "cudaMalloc of " + size + " bytes on device " + location.device());
            return new CudaMemory(this, CudaMemory.Kind.DEVICE, location, pointer, 0, size, Optional.empty());
        }
        int status = cudart.cudaHostAlloc(pointer, size, cudart.cudaHostAllocPortable);
        if (status == cudart.cudaErrorMemoryAllocation) {
            throw new DeviceOutOfMemoryException("cudaHostAlloc of " + size + " bytes failed: " + CudaErrors.describe(status), size);
        }
        CudaErrors.check(status, "cudaHostAlloc of " + size + " bytes");
        return new CudaMemory(this, CudaMemory.Kind.PINNED, location, pointer, 0, size, Optional.empty());
    }

    synchronized void free(CudaMemory memory)
    {
        if (memory.exportLeases().tryReleaseAll()) {
            release0(memory);
        }
        else {
            awaitingImporters.add(memory);
        }
    }

    private void release0(CudaMemory memory)
    {
        switch (memory.kind()) {
            case DEVICE:
                CudaErrors.check(cudart.cudaSetDevice(memory.location().device()), "cudaSetDevice");
                CudaErrors.check(cudart.cudaFree(memory.base()), "cudaFree of " + memory.describe());
                return;
            case PINNED:
                CudaErrors.check(cudart.cudaFreeHost(memory.base()), "cudaFreeHost of " + memory.describe());
                return;
            case IMPORTED:
                try {
                    CudaErrors.check(cudart.cudaSetDevice(memory.location().device()), "cudaSetDevice");
                    CudaErrors.check(cudart.cudaIpcCloseMemHandle(memory.base()), "cudaIpcCloseMemHandle of " + memory.describe());
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
        cudaIpcMemHandle_t handle = new cudaIpcMemHandle_t();
        CudaErrors.check(cudart.cudaSetDevice(cudaMemory.location().device()), "cudaSetDevice");
        CudaErrors.check(cudart.cudaIpcGetMemHandle(handle, cudaMemory.base()), "cudaIpcGetMemHandle of " + cudaMemory.describe());
        byte[] payload = new byte[cudart.CUDA_IPC_HANDLE_SIZE];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = handle.reserved(i);
        }
        IpcExportLease lease = IpcExportLease.create(leaseDirectory);
        cudaMemory.exportLeases().add(lease);
        return new IpcHandle(NAME, ProcessHandle.current().pid(), cudaMemory.location().device(), offset, length, lease.path().toString(), payload);
    }

    @Override
    public NativeMemory openIpc(IpcHandle handle)
    {
        byte[] payload = handle.payload();
        if (payload.length != cudart.CUDA_IPC_HANDLE_SIZE) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Malformed CUDA IPC payload in " + handle + ": " + payload.length + " bytes, expected " + cudart.CUDA_IPC_HANDLE_SIZE);
        }
        IpcImportLease lease = IpcImportLease.acquire(Paths.get(handle.leasePath()), handle.toString());
        boolean success = false;
        try {
            cudaIpcMemHandle_t cudaHandle = new cudaIpcMemHandle_t();
            for (int i = 0; i < payload.length; i++) {
                cudaHandle.reserved(i, payload[i]);
            }
            CudaErrors.check(cudart.cudaSetDevice(handle.device()), "cudaSetDevice(" + handle.device() + ")");
            Pointer mapped = new Pointer();
            CudaErrors.check(cudart.cudaIpcOpenMemHandle(mapped, cudaHandle, cudart.cudaIpcMemLazyEnablePeerAccess), "cudaIpcOpenMemHandle of " + handle);
            CudaMemory memory = new CudaMemory(this, CudaMemory.Kind.IMPORTED, MemoryLocation.device(handle.device()), mapped, handle.offset(), handle.length(), Optional.of(lease));
            success = true;
            return memory;
        }
        finally {
            if (!success) {
                lease.release();
            }
        }
    }

    @Override
    public synchronized long pendingIpcReleaseBytes()
    {
        long pending = 0;
        for (CudaMemory memory : awaitingImporters) {
            pending += memory.size();
        }
        return pending;
    }

    @Override
    public synchronized long reclaimIpcReleases()
    {
        long freed = 0;
        for (Iterator<CudaMemory> iterator = awaitingImporters.iterator(); iterator.hasNext(); ) {
            CudaMemory memory = iterator.next();
            if (memory.exportLeases().tryReleaseAll()) {
                iterator.remove();
                release0(memory);
                freed += memory.size();
            }
        }
        return freed;
    }

    @Override
    public IoRegistration registerIoBuffer(NativeMemory memory)
    {
        return cuFile.registerBuffer(cudaMemory(memory));
    }

    /**
     * Only {@code cudaMalloc} memory of this process: an IPC mapping is the exporter's allocation,
     * and {@code nvidia_peermem} pins pages of the owning context. Sets
     * {@code CU_POINTER_ATTRIBUTE_SYNC_MEMOPS} on the allocation first, as NVIDIA's GPUDirect RDMA
     * guide (and perftest) do, so a synchronous {@code cudaMemcpy} into it has landed before a
     * peer's READ can see the bytes.
     */
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

    @Override
    public FileReadEngine openFile(Path path)
    {
        return cuFile.openFile(this, path);
    }

    @Override
    public void close()
    {
        reclaimIpcReleases();
        synchronized (this) {
            if (!awaitingImporters.isEmpty()) {
                log.warn("CUDA backend closes while importers still map {} bytes; that memory is not freed", pendingIpcReleaseBytes());
            }
        }
        // The cuFile driver stays open for the process (see CuFileDriver.shared).
    }
}
