package dev.ferry.device.simulated;

import dev.ferry.device.host.ByteBufferMemory;
import dev.ferry.device.ipc.IpcExportLease;
import dev.ferry.device.memory.MemoryLocation;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/** One allocation in a simulated GPU's arena: a range of the shared-memory mapping. */
final class ArenaMemory
        extends ByteBufferMemory
{
    private final SharedArena arena;
    private final long arenaOffset;
    private final long reservedSize;
    private final List<IpcExportLease> leases = new ArrayList<>();

    ArenaMemory(SharedArena arena, long arenaOffset, long reservedSize, MemoryLocation location, ByteBuffer view)
    {
        super(location, view);
        this.arena = requireNonNull(arena, "arena is null");
        this.arenaOffset = arenaOffset;
        this.reservedSize = reservedSize;
    }

    SharedArena arena()
    {
        return arena;
    }

    long arenaOffset()
    {
        return arenaOffset;
    }

    long reservedSize()
    {
        return reservedSize;
    }

    synchronized void addLease(IpcExportLease lease)
    {
        leases.add(lease);
    }

    /** Ends every lease no importer holds; true when none is left and the range may be reused. */
    synchronized boolean releaseLeases()
    {
        leases.removeIf(IpcExportLease::tryRelease);
        return leases.isEmpty();
    }

    @Override
    public String describe()
    {
        return "simulated GPU " + location().device() + " arena [" + arenaOffset + ", +" + size() + ")";
    }

    @Override
    protected void free()
    {
        arena.free(this);
    }
}
