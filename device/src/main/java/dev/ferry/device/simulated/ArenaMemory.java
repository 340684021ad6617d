package dev.ferry.device.simulated;

import dev.ferry.device.host.ByteBufferMemory;
import dev.ferry.device.ipc.IpcExportLeases;
import dev.ferry.device.memory.MemoryLocation;

import java.nio.ByteBuffer;

import static java.util.Objects.requireNonNull;

/** One allocation in a simulated GPU's arena: a range of the shared-memory mapping. */
final class ArenaMemory
        extends ByteBufferMemory
{
    private final SharedArena arena;
    private final long arenaOffset;
    private final long reservedSize;
    private final IpcExportLeases exportLeases = new IpcExportLeases();

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

    /** Its range may be reused once these have all ended. */
    IpcExportLeases exportLeases()
    {
        return exportLeases;
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
