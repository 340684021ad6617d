package dev.ferry.device.simulated;

import dev.ferry.device.host.ByteBufferMemory;
import dev.ferry.device.ipc.IpcImportLease;
import dev.ferry.device.memory.MemoryLocation;

import dev.ferry.device.ipc.SharedMappings;

import static java.util.Objects.requireNonNull;

/**
 * Another process's simulated device memory: a slice of this process's mapping of its arena file
 * ({@link SharedMappings}). Closing drops the lease, which lets the exporter reuse the range; the
 * mapping stays for the next block of the same arena.
 */
final class ImportedMemory
        extends ByteBufferMemory
{
    private final SharedMappings.Slice slice;
    private final IpcImportLease lease;
    private final String description;

    ImportedMemory(MemoryLocation location, SharedMappings.Slice slice, IpcImportLease lease, String description)
    {
        super(location, slice.buffer());
        this.slice = slice;
        this.lease = requireNonNull(lease, "lease is null");
        this.description = requireNonNull(description, "description is null");
    }

    @Override
    public String describe()
    {
        return description;
    }

    @Override
    protected void free()
    {
        try {
            slice.close();
        }
        finally {
            lease.release();
        }
    }
}
