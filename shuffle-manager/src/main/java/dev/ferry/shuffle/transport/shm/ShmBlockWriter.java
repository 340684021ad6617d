package dev.ferry.shuffle.transport.shm;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.device.ipc.ArenaMemory;
import dev.ferry.device.ipc.IpcExportLease;
import dev.ferry.device.ipc.SharedArena;
import dev.ferry.device.memory.DeviceOutOfMemoryException;
import dev.ferry.device.memory.MemoryLocation;
import dev.ferry.device.memory.NativeMemory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * The writer's half of HOST_SHM and HOST_STAGED: publishes blocks that are not already in shared
 * memory (blocks staged out of GPU memory, blocks spilled to disk) where a same-node reader maps
 * them. All files are created atomically with mode 0600 under an unguessable name, so only
 * processes of the same user that were given the handle can map them.
 *
 * <p>With a staging arena ({@code spark.ferry.transport.shm.stagingBytes} above 0) a block is copied
 * into a range of one reused shared-memory file ({@link SharedArena}) under an export lease: the
 * reader maps that file once and keeps the mapping ({@code SharedMappings}), and both sides write and
 * read pages that are already there. A new file per block instead costs a zeroed page and a page
 * fault per 4 KiB on each side on every fetch, more than the copy itself. On {@link #release} the
 * range returns to the arena once the reader's lease is gone. A block that finds no free range (the
 * arena is full of ranges readers still hold, or the block is larger than the arena) gets a file of
 * its own, as without an arena; that is counted ({@link #arenaMisses}) and logged once.
 * Own files are deleted on {@link #release} or {@link #close}. Thread-safe.
 */
public final class ShmBlockWriter
        implements AutoCloseable
{
    private static final Logger log = LoggerFactory.getLogger(ShmBlockWriter.class);

    private final Path directory;
    private final long stagingBytes;
    private final Set<String> published = ConcurrentHashMap.newKeySet();
    private final Map<ShmBlockHandle, ArenaMemory> lent = new ConcurrentHashMap<>();
    private final AtomicLong arenaMisses = new AtomicLong();
    private final AtomicBoolean missLogged = new AtomicBoolean();
    // Made on first use, so an executor that never serves such a block holds no staging memory.
    private SharedArena arena;
    private boolean closed;

    public ShmBlockWriter(Path directory)
    {
        this(directory, 0);
    }

    /** {@code stagingBytes}: capacity of the reused staging arena; 0 publishes every block in a file of its own. */
    public ShmBlockWriter(Path directory, long stagingBytes)
    {
        this.directory = requireNonNull(directory, "directory is null");
        if (stagingBytes < 0 || stagingBytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("staging arena size must be between 0 and " + Integer.MAX_VALUE + " bytes: " + stagingBytes);
        }
        this.stagingBytes = stagingBytes < SharedArena.ALIGNMENT ? 0 : stagingBytes;
    }

    /** Blocks published in a file of their own because the staging arena had no free range for them. */
    public long arenaMisses()
    {
        return arenaMisses.get();
    }

    /** Blocks lent out of the staging arena and not yet released. */
    public int lentCount()
    {
        return lent.size();
    }

    /**
     * A range of the staging arena filled by {@code source} in one call (one copy, straight into the
     * shared memory the reader maps), or empty when there is no arena or no free range.
     */
    private Optional<ShmBlockHandle> publishInArena(long length, ChunkSource source)
    {
        SharedArena staging = arena();
        if (staging == null) {
            return Optional.empty();
        }
        ArenaMemory range;
        try {
            range = staging.allocate(length);
        }
        catch (DeviceOutOfMemoryException e) {
            arenaMisses.incrementAndGet();
            if (missLogged.compareAndSet(false, true)) {
                log.warn("A {}-byte block does not fit the shared-memory staging arena ({}); it and later such blocks get files of their own (counted, not logged again)",
                        length, e.getMessage());
            }
            return Optional.empty();
        }
        boolean success = false;
        try {
            source.fill(0, range.buffer().clear());
            IpcExportLease lease = IpcExportLease.create(directory, ShmNames.LEASE_PREFIX);
            range.exportLeases().add(lease);
            // The lease names the one range it grants, so a reader refuses a handle that claims more of the arena.
            writeRange(lease.path(), range.arenaOffset(), length);
            ShmBlockHandle handle = new ShmBlockHandle(staging.file().getFileName().toString(), range.arenaOffset(), length,
                    Optional.of(lease.path().getFileName().toString()));
            lent.put(handle, range);
            success = true;
            return Optional.of(handle);
        }
        finally {
            if (!success) {
                NativeMemory.freeUnowned(range);
            }
        }
    }

    private static void writeRange(Path lease, long offset, long length)
    {
        try {
            Files.write(lease, LeaseRange.toBytes(offset, length));
        }
        catch (IOException e) {
            throw new FerryException(ErrorCategory.EXTERNAL, "Cannot write the range into lease " + lease + ": " + e.getMessage(), e);
        }
    }

    private synchronized SharedArena arena()
    {
        if (stagingBytes == 0 || closed) {
            return null;
        }
        if (arena == null) {
            arena = SharedArena.create(MemoryLocation.pinnedHost(), "shared-memory staging arena", stagingBytes, directory, ShmNames.ARENA_PREFIX);
        }
        return arena;
    }

    /** Writes {@code block}'s remaining bytes (without moving its position) and returns the handle a reader maps. */
    public ShmBlockHandle publish(ByteBuffer block)
    {
        requireNonNull(block, "block is null");
        if (!block.hasRemaining()) {
            throw new IllegalArgumentException("Cannot publish an empty block");
        }
        Optional<ShmBlockHandle> inArena = publishInArena(block.remaining(), (offset, target) -> target.put(block.duplicate()));
        if (inArena.isPresent()) {
            return inArena.get();
        }
        String name = ShmNames.newName();
        Path file = directory.resolve(name);
        try (FileChannel channel = FileChannel.open(file, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
            published.add(name);
            ByteBuffer source = block.duplicate();
            long length = source.remaining();
            while (source.hasRemaining()) {
                channel.write(source);
            }
            return new ShmBlockHandle(name, 0, length);
        }
        catch (IOException e) {
            deleteQuietly(name);
            throw new FerryException(ErrorCategory.INSUFFICIENT_RESOURCES, "Cannot publish a " + block.remaining() + "-byte block in " + directory + ": " + e.getMessage(), e);
        }
    }

    /** Fills {@code chunk}'s remaining bytes with the block's bytes from {@code offset} on (advancing its position), e.g. by a copy out of GPU memory. */
    @FunctionalInterface
    public interface ChunkSource
    {
        void fill(long offset, ByteBuffer chunk);
    }

    /**
     * Writes a {@code length}-byte block that is produced chunk by chunk into {@code staging}
     * (reused for every chunk, so a block from GPU memory needs no host buffer of its own size) and
     * returns the handle a reader maps.
     */
    public ShmBlockHandle publish(long length, ByteBuffer staging, ChunkSource source)
    {
        requireNonNull(staging, "staging is null");
        requireNonNull(source, "source is null");
        if (length <= 0 || !staging.isDirect() || staging.capacity() == 0) {
            throw new IllegalArgumentException("Cannot publish a " + length + "-byte block through a " + staging.capacity() + "-byte staging buffer");
        }
        Optional<ShmBlockHandle> inArena = publishInArena(length, source);
        if (inArena.isPresent()) {
            return inArena.get();
        }
        String name = ShmNames.newName();
        Path file = directory.resolve(name);
        try (FileChannel channel = FileChannel.open(file, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
            published.add(name);
            for (long offset = 0; offset < length; ) {
                ByteBuffer chunk = staging.clear().limit((int) Math.min(staging.capacity(), length - offset));
                source.fill(offset, chunk);
                chunk.flip();
                while (chunk.hasRemaining()) {
                    offset += channel.write(chunk, offset);
                }
            }
            return new ShmBlockHandle(name, 0, length);
        }
        catch (IOException | RuntimeException e) {
            deleteQuietly(name);
            throw new FerryException(ErrorCategory.INSUFFICIENT_RESOURCES, "Cannot publish a " + length + "-byte block in " + directory + ": " + e.getMessage(), e);
        }
    }

    /**
     * Deletes the block's file (readers that already mapped it keep their mapping), or returns its
     * arena range, which is reused once no reader holds its lease.
     */
    public void release(ShmBlockHandle handle)
    {
        ArenaMemory range = lent.remove(handle);
        if (range != null) {
            NativeMemory.freeUnowned(range);
            return;
        }
        if (!published.remove(handle.fileName())) {
            throw new IllegalArgumentException("Not published by this writer (or already released): " + handle.fileName());
        }
        deleteQuietly(handle.fileName());
    }

    public int publishedCount()
    {
        return published.size();
    }

    private void deleteQuietly(String name)
    {
        published.remove(name);
        try {
            Files.deleteIfExists(directory.resolve(name));
        }
        catch (IOException e) {
            log.warn("Could not delete shared-memory block {}: {}", directory.resolve(name), e.toString());
        }
    }

    @Override
    public void close()
    {
        for (String name : Set.copyOf(published)) {
            deleteQuietly(name);
        }
        for (ShmBlockHandle handle : Set.copyOf(lent.keySet())) {
            release(handle);
        }
        SharedArena staging;
        synchronized (this) {
            closed = true;
            staging = arena;
            arena = null;
        }
        if (staging != null) {
            // Readers that still map it keep its pages until they let go (SharedMappings drops mappings of deleted files).
            staging.close();
        }
    }
}
