package dev.ferry.device.ipc;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.device.DeviceRegion;
import dev.ferry.device.memory.DeviceOutOfMemoryException;
import dev.ferry.device.memory.MemoryLocation;
import dev.ferry.device.memory.SubAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.OptionalLong;

import static java.util.Objects.requireNonNull;

/**
 * Memory in one shared-memory file mapped once, whose ranges another process on the host maps
 * ({@link SharedMappings}) while it holds an export lease of the range: the memory of a simulated
 * GPU (another JVM opens an exported range as a CUDA IPC handle opens in another process), and the
 * host staging memory of same-node shuffle transfers. Allocations are 4 KiB aligned (direct I/O can
 * land in them) and first-fit: the arena is a fixed {@link SubAllocator} of one slab, the same
 * books and deferred frees as the cuda backend's device pool.
 *
 * <p>The file is sparse; before a range is handed out for the first time its pages are written
 * (committed), so a full {@code /dev/shm} is an allocation error here rather than a SIGBUS on a
 * later access. Freed ranges that an importer still maps are parked until its lease is gone.
 */
public final class SharedArena
        implements AutoCloseable
{
    public static final int ALIGNMENT = 4096;
    private static final Logger log = LoggerFactory.getLogger(SharedArena.class);
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(1 << 20);

    private final MemoryLocation location;
    private final String label;
    private final Path file;
    private final FileChannel channel;
    private final MappedByteBuffer mapping;
    private final long capacity;
    private final SubAllocator<MappedByteBuffer> space;
    private long committed;
    private boolean closed;

    private SharedArena(MemoryLocation location, String label, Path file, FileChannel channel, MappedByteBuffer mapping, long capacity)
    {
        this.location = requireNonNull(location, "location is null");
        this.label = requireNonNull(label, "label is null");
        this.file = requireNonNull(file, "file is null");
        this.channel = requireNonNull(channel, "channel is null");
        this.mapping = requireNonNull(mapping, "mapping is null");
        this.capacity = capacity;
        this.space = SubAllocator.fixed(label, ALIGNMENT, mapping, capacity);
    }

    /**
     * A new arena of {@code capacity} bytes (at most {@code Integer.MAX_VALUE}: one mapping) in a
     * 0600 file of {@code directory} named {@code filePrefix-<pid>-<random>}; its memory reports
     * {@code location}, and {@code label} names it in messages.
     */
    public static SharedArena create(MemoryLocation location, String label, long capacity, Path directory, String filePrefix)
    {
        if (capacity < ALIGNMENT || capacity > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(label + ": capacity must be between " + ALIGNMENT + " and " + Integer.MAX_VALUE + " bytes, got " + capacity);
        }
        Path file = SharedMemoryFiles.create(directory, filePrefix);
        FileChannel channel = null;
        try {
            channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
            MappedByteBuffer mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, capacity);
            return new SharedArena(location, label, file, channel, mapping, capacity);
        }
        catch (IOException e) {
            closeQuietly(channel);
            deleteQuietly(file);
            throw new FerryException(ErrorCategory.EXTERNAL, "Cannot map " + capacity + " bytes of shared memory for " + label + " at " + file + ": " + e.getMessage(), e);
        }
    }

    public Path file()
    {
        return file;
    }

    public long capacity()
    {
        return capacity;
    }

    /** A range of {@code size} bytes; throws {@link DeviceOutOfMemoryException} when no free range is large enough. */
    public synchronized ArenaMemory allocate(long size)
    {
        // A closed arena's sub-allocator refuses, naming the arena.
        SubAllocator.Allocation<MappedByteBuffer> range = space.allocate(size);
        long end = range.offset() + space.reservedSize(size);
        try {
            commit(end);
        }
        catch (IOException e) {
            space.free(range, () -> true);
            throw new DeviceOutOfMemoryException(label + " cannot back " + space.reservedSize(size) + " bytes at offset " + range.offset() + " in " + file + ": " + e.getMessage(), size);
        }
        ByteBuffer view = mapping.slice((int) range.offset(), (int) size);
        return new ArenaMemory(this, range, location, view);
    }

    private void commit(long end)
            throws IOException
    {
        while (committed < end) {
            int chunk = (int) Math.min(ZEROS.capacity(), end - committed);
            int written = channel.write(ZEROS.duplicate().limit(chunk), committed);
            committed += written;
        }
    }

    String label()
    {
        return label;
    }

    void free(ArenaMemory memory)
    {
        space.free(memory.range(), memory.exportLeases()::tryReleaseAll);
    }

    /**
     * The whole arena as the region {@code memory} lies in (the simulated GPU's one slab): its
     * mapping is the key and the bytes; a release hook runs when the arena closes.
     */
    public DeviceRegion region(ArenaMemory memory)
    {
        return new DeviceRegion(mapping, location.device(), capacity, memory.arenaOffset(), Optional.of(mapping.duplicate()), OptionalLong.empty(),
                memory.range()::onSlabReleased);
    }

    /** Returns the ranges whose importers have all let go to the free space; the bytes freed. */
    public long reclaim()
    {
        return space.reclaim();
    }

    /** Bytes freed by their owner but still held by an importer's lease. */
    public long pendingBytes()
    {
        return space.pendingBytes();
    }

    /** The arena's books: live buffers, parked frees, slab counts. */
    public SubAllocator<MappedByteBuffer> space()
    {
        return space;
    }

    /**
     * Deletes the arena file. Importers that still map a range keep it (the kernel keeps the
     * pages until the last mapping goes), so closing never pulls memory from under them.
     */
    @Override
    public synchronized void close()
    {
        if (closed) {
            return;
        }
        closed = true;
        // Logs what importers still map; their mappings stay valid after the file is deleted.
        space.close();
        closeQuietly(channel);
        deleteQuietly(file);
    }

    private static void closeQuietly(FileChannel channel)
    {
        if (channel != null) {
            try {
                channel.close();
            }
            catch (IOException e) {
                log.warn("Cannot close {}", channel, e);
            }
        }
    }

    private static void deleteQuietly(Path file)
    {
        try {
            Files.deleteIfExists(file);
        }
        catch (IOException e) {
            log.warn("Cannot delete shared-memory file {}", file, e);
        }
    }
}
