package dev.ferry.device.ipc;

import dev.ferry.device.host.ByteBufferMemory;
import dev.ferry.device.memory.MemoryLocation;

import java.nio.ByteBuffer;

import static java.util.Objects.requireNonNull;

/** One allocation in a {@link SharedArena}: a range of its shared-memory mapping. */
public final class ArenaMemory
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

    public SharedArena arena()
    {
        return arena;
    }

    public long arenaOffset()
    {
        return arenaOffset;
    }

    long reservedSize()
    {
        return reservedSize;
    }

    /** Its range may be reused once these have all ended. */
    public IpcExportLeases exportLeases()
    {
        return exportLeases;
    }

    @Override
    public String describe()
    {
        return arena.label() + " [" + arenaOffset + ", +" + size() + ")";
    }

    @Override
    protected void free()
    {
        arena.free(this);
    }
}
