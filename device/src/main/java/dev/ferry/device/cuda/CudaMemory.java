package dev.ferry.device.cuda;

import dev.ferry.device.ipc.IpcExportLeases;
import dev.ferry.device.ipc.IpcImportLease;
import dev.ferry.device.ipc.PeerArenaImports;
import dev.ferry.device.memory.MemoryLocation;
import dev.ferry.device.memory.NativeMemory;
import dev.ferry.device.memory.SubAllocator;
import org.bytedeco.javacpp.Pointer;

import java.util.Optional;
import java.util.OptionalInt;

import static java.util.Objects.requireNonNull;

/**
 * Device memory sub-allocated from a {@code cudaMalloc} slab of the device pool, pinned memory
 * from cudaHostAlloc, or an opened IPC mapping.
 */
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
    private final Optional<SubAllocator.Allocation<Pointer>> range;
    private final IpcExportLeases exportLeases = new IpcExportLeases();
    // Set once by imported(), before the memory is published.
    private Optional<PeerArenaImports<CudaBackend.ImportedSlab>.Use> importUse = Optional.empty();

    CudaMemory(CudaBackend backend, Kind kind, MemoryLocation location, Pointer base, long baseOffset, long size, Optional<IpcImportLease> importLease)
    {
        this(backend, kind, location, base, baseOffset, size, importLease, Optional.empty());
    }

    /** A block of an exporter's slab, mapped on {@code importingDevice} ({@code use}'s mapping), at {@code offset} in the slab. */
    static CudaMemory imported(CudaBackend backend, MemoryLocation location, PeerArenaImports<CudaBackend.ImportedSlab>.Use use, long offset, long size,
            IpcImportLease lease)
    {
        CudaMemory memory = new CudaMemory(backend, Kind.IMPORTED, location, use.mapped().base(), offset, size, Optional.of(lease), Optional.empty());
        memory.importUse = Optional.of(use);
        return memory;
    }

    /** Device memory: {@code range} of a pool slab, whose base is the slab's {@code cudaMalloc} pointer. */
    static CudaMemory pooled(CudaBackend backend, MemoryLocation location, SubAllocator.Allocation<Pointer> range)
    {
        return new CudaMemory(backend, Kind.DEVICE, location, range.slab(), range.offset(), range.size(), Optional.empty(), Optional.of(range));
    }

    private CudaMemory(CudaBackend backend, Kind kind, MemoryLocation location, Pointer base, long baseOffset, long size, Optional<IpcImportLease> importLease,
            Optional<SubAllocator.Allocation<Pointer>> range)
    {
        super(location, size);
        this.backend = requireNonNull(backend, "backend is null");
        this.kind = requireNonNull(kind, "kind is null");
        this.base = requireNonNull(base, "base is null");
        this.baseOffset = baseOffset;
        this.importLease = requireNonNull(importLease, "importLease is null");
        this.range = requireNonNull(range, "range is null");
    }

    /** The pool range of device memory (empty for pinned memory and imports). */
    Optional<SubAllocator.Allocation<Pointer>> range()
    {
        return range;
    }

    Kind kind()
    {
        return kind;
    }

    /** The pointer CUDA returned (the slab's allocation base, or mapping base for imports). */
    Pointer base()
    {
        return base;
    }

    /** Where this memory's byte 0 lies after {@link #base()}: its offset in the slab, or in the exporter's slab for an import. */
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

    /** Ends this import's use of its slab mapping (the mapping itself stays open). */
    void releaseImport()
    {
        importUse.ifPresent(PeerArenaImports.Use::close);
    }

    @Override
    public OptionalInt importingDevice()
    {
        return importUse.isPresent() ? OptionalInt.of(importUse.get().mapped().importingDevice()) : OptionalInt.empty();
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
