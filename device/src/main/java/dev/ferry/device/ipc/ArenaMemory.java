package dev.ferry.device.ipc;

import dev.ferry.device.host.ByteBufferMemory;
import dev.ferry.device.memory.MemoryLocation;
import dev.ferry.device.memory.SubAllocator;

import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;

import static java.util.Objects.requireNonNull;

/** One allocation in a {@link SharedArena}: a range of its shared-memory mapping. */
public final class ArenaMemory
        extends ByteBufferMemory
{
    private final SharedArena arena;
    private final SubAllocator.Allocation<MappedByteBuffer> range;
    private final IpcExportLeases exportLeases = new IpcExportLeases();

    ArenaMemory(SharedArena arena, SubAllocator.Allocation<MappedByteBuffer> range, MemoryLocation location, ByteBuffer view)
    {
        super(location, view);
        this.arena = requireNonNull(arena, "arena is null");
        this.range = requireNonNull(range, "range is null");
    }

    public SharedArena arena()
    {
        return arena;
    }

    public long arenaOffset()
    {
        return range.offset();
    }

    SubAllocator.Allocation<MappedByteBuffer> range()
    {
        return range;
    }

    /** Its range may be reused once these have all ended. */
    public IpcExportLeases exportLeases()
    {
        return exportLeases;
    }

    @Override
    public String describe()
    {
        return arena.label() + " [" + range.offset() + ", +" + size() + ")";
    }

    @Override
    protected void free()
    {
        arena.free(this);
    }
}
