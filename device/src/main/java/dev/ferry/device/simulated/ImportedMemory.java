package dev.ferry.device.simulated;

import dev.ferry.device.host.ByteBufferMemory;
import dev.ferry.device.ipc.IpcImportLease;
import dev.ferry.device.ipc.PeerArenaImports;
import dev.ferry.device.ipc.SharedMappings;
import dev.ferry.device.memory.MemoryLocation;

import java.nio.ByteBuffer;
import java.util.OptionalInt;

import static java.util.Objects.requireNonNull;

/**
 * Another process's simulated device memory, imported on one of this process's devices: a slice
 * of the arena mapping the backend keeps ({@link PeerArenaImports} over {@link SharedMappings}).
 * Closing drops the lease, which lets the exporter reuse the range, and this block's use of the
 * mapping; the mapping stays for the next block of the same arena.
 */
final class ImportedMemory
        extends ByteBufferMemory
{
    private final int importingDevice;
    private final PeerArenaImports<SharedMappings.Slice>.Use mapping;
    private final IpcImportLease lease;
    private final String description;

    ImportedMemory(MemoryLocation location, int importingDevice, ByteBuffer bytes, PeerArenaImports<SharedMappings.Slice>.Use mapping, IpcImportLease lease,
            String description)
    {
        super(location, bytes);
        this.importingDevice = importingDevice;
        this.mapping = requireNonNull(mapping, "mapping is null");
        this.lease = requireNonNull(lease, "lease is null");
        this.description = requireNonNull(description, "description is null");
    }

    @Override
    public OptionalInt importingDevice()
    {
        return OptionalInt.of(importingDevice);
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
            mapping.close();
        }
        finally {
            lease.release();
        }
    }
}
