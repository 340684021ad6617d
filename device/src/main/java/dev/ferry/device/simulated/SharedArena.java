package dev.ferry.device.simulated;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.device.ipc.SharedMemoryFiles;
import dev.ferry.device.memory.DeviceOutOfMemoryException;
import dev.ferry.device.memory.MemoryLocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The memory of one simulated GPU: a shared-memory file mapped once, so another JVM on the host
 * can map an exported range of it exactly as a CUDA IPC handle opens in another process.
 * Allocations are 4 KiB aligned (direct I/O can land in them) and first-fit.
 *
 * <p>The file is sparse; before a range is handed out for the first time its pages are written
 * (committed), so a full {@code /dev/shm} is an allocation error here rather than a SIGBUS on a
 * later access. Freed ranges that an importer still maps are parked until its lease is gone.
 */
final class SharedArena
        implements AutoCloseable
{
    static final int ALIGNMENT = 4096;
    private static final Logger log = LoggerFactory.getLogger(SharedArena.class);
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(1 << 20);

    private final int device;
    private final Path file;
    private final FileChannel channel;
    private final MappedByteBuffer mapping;
    private final long capacity;
    private final ArenaSpace space;
    private final List<ArenaMemory> awaitingImporters = new ArrayList<>();
    private long committed;
    private boolean closed;

    private SharedArena(int device, Path file, FileChannel channel, MappedByteBuffer mapping, long capacity)
    {
        this.device = device;
        this.file = requireNonNull(file, "file is null");
        this.channel = requireNonNull(channel, "channel is null");
        this.mapping = requireNonNull(mapping, "mapping is null");
        this.capacity = capacity;
        this.space = new ArenaSpace(capacity);
    }

    static SharedArena create(int device, long capacity, Path directory)
    {
        Path file = SharedMemoryFiles.create(directory, "ferry-sim-gpu" + device);
        FileChannel channel = null;
        try {
            channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
            MappedByteBuffer mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, capacity);
            return new SharedArena(device, file, channel, mapping, capacity);
        }
        catch (IOException e) {
            closeQuietly(channel);
            deleteQuietly(file);
            throw new FerryException(ErrorCategory.EXTERNAL, "Cannot map " + capacity + " bytes of shared memory for simulated GPU " + device + " at " + file + ": " + e.getMessage(), e);
        }
    }

    Path file()
    {
        return file;
    }

    int device()
    {
        return device;
    }

    synchronized ArenaMemory allocate(long size)
    {
        checkOpen();
        reclaimLocked();
        long reserved = (size + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
        long start = space.take(reserved);
        if (start < 0) {
            throw new DeviceOutOfMemoryException("Simulated GPU " + device + " has no free range of " + reserved + " bytes: capacity " + capacity + ", free " + space.freeBytes()
                    + " (largest range " + space.largestFreeRange() + "), " + pendingBytesLocked() + " bytes held by IPC importers", size);
        }
        try {
            commit(start + reserved);
        }
        catch (IOException e) {
            space.give(start, reserved);
            throw new DeviceOutOfMemoryException("Simulated GPU " + device + " cannot back " + reserved + " bytes at offset " + start + " in " + file + ": " + e.getMessage(), size);
        }
        ByteBuffer view = mapping.slice((int) start, (int) size);
        return new ArenaMemory(this, start, reserved, MemoryLocation.device(device), view);
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

    synchronized void free(ArenaMemory memory)
    {
        if (memory.exportLeases().tryReleaseAll()) {
            space.give(memory.arenaOffset(), memory.reservedSize());
        }
        else {
            awaitingImporters.add(memory);
        }
    }

    synchronized long reclaim()
    {
        return reclaimLocked();
    }

    private long reclaimLocked()
    {
        long freed = 0;
        for (Iterator<ArenaMemory> iterator = awaitingImporters.iterator(); iterator.hasNext(); ) {
            ArenaMemory memory = iterator.next();
            if (memory.exportLeases().tryReleaseAll()) {
                iterator.remove();
                space.give(memory.arenaOffset(), memory.reservedSize());
                freed += memory.reservedSize();
            }
        }
        return freed;
    }

    synchronized long pendingBytes()
    {
        return pendingBytesLocked();
    }

    private long pendingBytesLocked()
    {
        long pending = 0;
        for (ArenaMemory memory : awaitingImporters) {
            pending += memory.reservedSize();
        }
        return pending;
    }

    private void checkOpen()
    {
        if (closed) {
            throw new IllegalStateException("Simulated GPU " + device + " is closed");
        }
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
        reclaimLocked();
        if (!awaitingImporters.isEmpty()) {
            log.warn("Simulated GPU {} closes while importers still map {} bytes; their mappings stay valid", device, pendingBytesLocked());
        }
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
