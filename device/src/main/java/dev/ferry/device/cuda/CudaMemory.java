package dev.ferry.device.cuda;

import dev.ferry.device.ipc.IpcExportLeases;
import dev.ferry.device.ipc.IpcImportLease;
import dev.ferry.device.memory.MemoryLocation;
import dev.ferry.device.memory.NativeMemory;
import org.bytedeco.javacpp.Pointer;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** Device memory from cudaMalloc, pinned memory from cudaHostAlloc, or an opened IPC mapping. */
final class CudaMemory
        extends NativeMemory
{
    enum Kind
    {
        DEVICE,
        PINNED,
        IMPORTED,
    }

    private final CudaBackend backend;
    private final Kind kind;
    private final Pointer base;
    private final long baseOffset;
    private final Optional<IpcImportLease> importLease;
    private final IpcExportLeases exportLeases = new IpcExportLeases();

    CudaMemory(CudaBackend backend, Kind kind, MemoryLocation location, Pointer base, long baseOffset, long size, Optional<IpcImportLease> importLease)
    {
        super(location, size);
        this.backend = requireNonNull(backend, "backend is null");
        this.kind = requireNonNull(kind, "kind is null");
        this.base = requireNonNull(base, "base is null");
        this.baseOffset = baseOffset;
        this.importLease = requireNonNull(importLease, "importLease is null");
    }

    Kind kind()
    {
        return kind;
    }

    /** The pointer CUDA returned (allocation base, or mapping base for imports). */
    Pointer base()
    {
        return base;
    }

    /** Where this memory's byte 0 lies after {@link #base()} (non-zero only for IPC imports of an offset range). */
    long baseOffset()
    {
        return baseOffset;
    }

    /** The address of byte {@code offset} of this memory. */
    Pointer at(long offset)
    {
        return new AddressPointer(base.address() + baseOffset + offset);
    }

    long address(long offset)
    {
        return base.address() + baseOffset + offset;
    }

    Optional<IpcImportLease> importLease()
    {
        return importLease;
    }

    IpcExportLeases exportLeases()
    {
        return exportLeases;
    }

    @Override
    public String describe()
    {
        return "CUDA " + kind.name().toLowerCase(java.util.Locale.ROOT) + " memory at 0x" + Long.toHexString(address(0)) + " on " + location();
    }

    @Override
    protected void free()
    {
        backend.free(this);
    }
}
