package dev.ferry.device.simulated;

import dev.ferry.device.host.ByteBufferMemory;
import dev.ferry.device.ipc.IpcImportLease;
import dev.ferry.device.memory.MemoryLocation;

import java.nio.MappedByteBuffer;

import static java.util.Objects.requireNonNull;

/**
 * Another process's simulated device memory, mapped from its arena file. Closing drops the lease,
 * which lets the exporter reuse the range; the mapping itself goes with its last reference.
 */
final class ImportedMemory
        extends ByteBufferMemory
{
    private final IpcImportLease lease;
    private final String description;

    ImportedMemory(MemoryLocation location, MappedByteBuffer mapping, IpcImportLease lease, String description)
    {
        super(location, mapping);
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
        lease.release();
    }
}
