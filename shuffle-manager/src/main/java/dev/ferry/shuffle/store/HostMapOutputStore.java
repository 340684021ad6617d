package dev.ferry.shuffle.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.ferry.shuffle.FerryFallbacks;
import dev.ferry.shuffle.transport.shm.ShmBlockHandle;
import dev.ferry.shuffle.transport.shm.ShmSegment;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * Map outputs in off-heap host memory up to a limit, beyond it in one local file per map output.
 * Each output is laid out like Spark's data file (blocks back to back, offsets beside), so a
 * block in memory is handed out as a slice of the stored buffer without copying. With a
 * shared-memory directory, that host memory is a private shared-memory file per output
 * ({@link ShmSegment}), written once at commit: a same-node reader then maps the block from it by
 * name (HOST_SHM) instead of the block server copying it into a file per fetch. A segment that
 * cannot be created (e.g. /dev/shm full) is logged and counted as a fallback, and that output is
 * kept in plain memory. Thread-safe.
 */
public final class HostMapOutputStore
        implements MapOutputStore
{
    private static final Logger LOG = LoggerFactory.getLogger(HostMapOutputStore.class);

    private final BufferAllocator allocator;
    private final long memoryLimit;
    private final Path spillDirectory;
    private final Optional<Path> sharedMemory;
    private final Map<Key, StoredOutput> outputs = new HashMap<>();
    // The map id stored for each (shuffle, map index): a newer attempt supersedes the older one.
    private final Map<Key, Long> latestByIndex = new HashMap<>();
    private long memoryBytes;
    private long diskBytes;
    private long spilledOutputs;
    private boolean closed;

    /** {@code allocator} is owned by this store and closed with it. */
    public HostMapOutputStore(BufferAllocator allocator, long memoryLimit, Path spillDirectory)
    {
        this(allocator, memoryLimit, spillDirectory, Optional.empty());
    }

    /** As above; {@code sharedMemory}: the directory (e.g. /dev/shm) to keep in-memory outputs in, for HOST_SHM readers. */
    public HostMapOutputStore(BufferAllocator allocator, long memoryLimit, Path spillDirectory, Optional<Path> sharedMemory)
    {
        this.sharedMemory = requireNonNull(sharedMemory, "sharedMemory is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
        if (memoryLimit < 0) {
            throw new IllegalArgumentException("memoryLimit must not be negative: " + memoryLimit);
        }
        this.memoryLimit = memoryLimit;
        this.spillDirectory = requireNonNull(spillDirectory, "spillDirectory is null");
    }

    @Override
    public String name()
    {
        return "host";
    }

    @Override
    public long commit(MapOutputId id, EncodedMapOutput output)
            throws IOException
    {
        long[] offsets = new long[output.partitions() + 1];
        for (int partition = 0; partition < output.partitions(); partition++) {
            offsets[partition + 1] = offsets[partition] + output.blockLength(partition);
        }
        long total = offsets[output.partitions()];
        StoredOutput stored;
        boolean toMemory;
        synchronized (this) {
            checkOpen();
            toMemory = memoryBytes + total <= memoryLimit;
            if (toMemory) {
                // Reserve now so concurrent commits cannot overshoot the limit together.
                memoryBytes += total;
            }
        }
        try {
            stored = toMemory ? writeToMemory(output, offsets) : writeToDisk(id, output, offsets);
        }
        catch (IOException | RuntimeException e) {
            if (toMemory) {
                synchronized (this) {
                    memoryBytes -= total;
                }
            }
            throw e;
        }
        StoredOutput superseded = null;
        synchronized (this) {
            if (closed) {
                stored.release();
                throw new IllegalStateException("Map output store is closed");
            }
            Key indexKey = new Key(id.shuffleId(), id.mapIndex());
            Long previous = latestByIndex.put(indexKey, id.mapId());
            if (previous != null && previous != id.mapId()) {
                superseded = outputs.remove(new Key(id.shuffleId(), previous));
                forget(superseded);
            }
            outputs.put(new Key(id.shuffleId(), id.mapId()), stored);
            if (!toMemory) {
                diskBytes += total;
                spilledOutputs++;
            }
        }
        if (superseded != null) {
            LOG.info("Map output {} of shuffle {} index {} superseded by attempt {}", superseded, id.shuffleId(), id.mapIndex(), id.mapId());
            superseded.release();
        }
        return toMemory ? 0 : total;
    }

    private StoredOutput writeToMemory(EncodedMapOutput output, long[] offsets)
    {
        long total = offsets[offsets.length - 1];
        ShmSegment segment = total > 0 && sharedMemory.isPresent() ? sharedSegment(total) : null;
        ArrowBuf buffer = segment != null ? segment.buffer() : allocator.buffer(Math.max(total, 1));
        try {
            for (int partition = 0; partition < output.partitions(); partition++) {
                long length = offsets[partition + 1] - offsets[partition];
                if (length > 0) {
                    output.writeBlock(partition, buffer.nioBuffer(offsets[partition], Math.toIntExact(length)));
                }
            }
            return new StoredOutput(buffer, segment, null, offsets);
        }
        catch (RuntimeException e) {
            buffer.close();
            throw e;
        }
    }

    private ShmSegment sharedSegment(long total)
    {
        try {
            return ShmSegment.allocate(allocator, sharedMemory.get(), total);
        }
        catch (IOException | RuntimeException e) {
            FerryFallbacks.record("map output kept in plain memory, not shared memory", "cannot create a " + total + "-byte segment in " + sharedMemory.get() + ": " + e.getMessage()
                    + "; same-node readers get a copy of its blocks");
            return null;
        }
    }

    private StoredOutput writeToDisk(MapOutputId id, EncodedMapOutput output, long[] offsets)
            throws IOException
    {
        Files.createDirectories(spillDirectory);
        Path file = spillDirectory.resolve("ferry-shuffle-" + id.shuffleId() + "-" + id.mapId() + ".data");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            for (int partition = 0; partition < output.partitions(); partition++) {
                long length = offsets[partition + 1] - offsets[partition];
                if (length > 0) {
                    output.writeBlock(partition, channel, offsets[partition]);
                }
            }
        }
        catch (IOException | RuntimeException e) {
            Files.deleteIfExists(file);
            throw e;
        }
        return new StoredOutput(null, null, file, offsets);
    }

    @Override
    public Optional<BlockBytes> open(int shuffleId, long mapId, int reduceId)
            throws IOException
    {
        StoredOutput stored;
        long offset;
        long length;
        synchronized (this) {
            checkOpen();
            stored = outputs.get(new Key(shuffleId, mapId));
            if (stored == null || reduceId < 0 || reduceId >= stored.offsets.length - 1) {
                return Optional.empty();
            }
            offset = stored.offsets[reduceId];
            length = stored.offsets[reduceId + 1] - offset;
            if (stored.memory != null) {
                // Zero copy: a slice sharing the stored buffer, which stays alive until the reader closes it.
                stored.memory.getReferenceManager().retain();
                if (length == 0) {
                    return Optional.of(new BlockBytes(stored.memory.slice(0, 0), 0));
                }
                ShmBlockHandle sharedAt = stored.segment == null ? null : stored.segment.handle(offset, length);
                return Optional.of(new BlockBytes(stored.memory.slice(offset, length), length, sharedAt, stored.region(offset)));
            }
        }
        ArrowBuf buffer = allocator.buffer(Math.max(length, 1));
        try (FileChannel channel = FileChannel.open(stored.file, StandardOpenOption.READ)) {
            ByteBuffer target = buffer.nioBuffer(0, Math.toIntExact(length));
            long position = offset;
            while (target.hasRemaining()) {
                int read = channel.read(target, position);
                if (read < 0) {
                    throw new IOException("Map output file " + stored.file + " ends before block " + reduceId);
                }
                position += read;
            }
            return Optional.of(new BlockBytes(buffer, length));
        }
        catch (IOException | RuntimeException e) {
            buffer.close();
            throw e;
        }
    }

    @Override
    public void remove(int shuffleId, long mapId)
    {
        StoredOutput stored;
        synchronized (this) {
            stored = outputs.remove(new Key(shuffleId, mapId));
            forget(stored);
            latestByIndex.values().remove(mapId);
        }
        if (stored != null) {
            stored.release();
        }
    }

    @Override
    public int removeShuffle(int shuffleId)
    {
        List<StoredOutput> removed = new ArrayList<>();
        synchronized (this) {
            for (Iterator<Map.Entry<Key, StoredOutput>> iterator = outputs.entrySet().iterator(); iterator.hasNext(); ) {
                Map.Entry<Key, StoredOutput> entry = iterator.next();
                if (entry.getKey().shuffleId == shuffleId) {
                    iterator.remove();
                    forget(entry.getValue());
                    removed.add(entry.getValue());
                }
            }
            latestByIndex.keySet().removeIf(key -> key.shuffleId == shuffleId);
        }
        removed.forEach(StoredOutput::release);
        return removed.size();
    }

    private void forget(StoredOutput stored)
    {
        if (stored == null) {
            return;
        }
        long total = stored.offsets[stored.offsets.length - 1];
        if (stored.memory != null) {
            memoryBytes -= total;
        }
        else {
            diskBytes -= total;
        }
    }

    @Override
    public synchronized long memoryBytes()
    {
        return memoryBytes;
    }

    @Override
    public synchronized long diskBytes()
    {
        return diskBytes;
    }

    public synchronized long spilledOutputs()
    {
        return spilledOutputs;
    }

    private void checkOpen()
    {
        if (closed) {
            throw new IllegalStateException("Map output store is closed");
        }
    }

    /** Releases every output and the allocator; a block still being read keeps its memory until the reader closes it. */
    @Override
    public void close()
    {
        List<StoredOutput> all;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            all = new ArrayList<>(outputs.values());
            outputs.clear();
            latestByIndex.clear();
            memoryBytes = 0;
            diskBytes = 0;
        }
        all.forEach(StoredOutput::release);
        try {
            allocator.close();
        }
        catch (IllegalStateException e) {
            // A reader still holds a slice (a task being killed at executor stop); the memory goes when it closes.
            LOG.warn("Ferry map output store closed while blocks were still being read: {}", e.getMessage());
        }
    }

    private record Key(int shuffleId, long id)
    {
    }

    private static final class StoredOutput
    {
        private final ArrowBuf memory;
        // The shared-memory file behind memory, or null when it is plain memory (or on disk).
        private final ShmSegment segment;
        private final Path file;
        private final long[] offsets;
        // Hooks of whoever registered this output's memory (a NIC); run once, when the store releases it. Guarded by this.
        private List<Runnable> releaseHooks = new ArrayList<>(0);
        private boolean released;

        StoredOutput(ArrowBuf memory, ShmSegment segment, Path file, long[] offsets)
        {
            this.memory = memory;
            this.segment = segment;
            this.file = file;
            this.offsets = offsets;
        }

        /** This output as the region of the block at {@code offset} (memory only); null for an output a ByteBuffer cannot span (2 GiB and more). */
        HostRegion region(long offset)
        {
            if (memory.capacity() > Integer.MAX_VALUE) {
                return null;
            }
            return new HostRegion(this, memory.nioBuffer(0, (int) memory.capacity()), offset, this::onRelease);
        }

        private void onRelease(Runnable hook)
        {
            synchronized (this) {
                if (!released) {
                    releaseHooks.add(hook);
                    return;
                }
            }
            // Already released; run outside the lock, like release() does (a hook takes its owner's lock).
            hook.run();
        }

        void release()
        {
            List<Runnable> hooks;
            synchronized (this) {
                released = true;
                hooks = releaseHooks;
                releaseHooks = List.of();
            }
            for (Runnable hook : hooks) {
                try {
                    hook.run();
                }
                catch (RuntimeException e) {
                    LOG.warn("A release hook of a map output failed: {}", e.getMessage());
                }
            }
            if (memory != null) {
                memory.close();
            }
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                }
                catch (IOException e) {
                    throw new UncheckedIOException("Cannot delete map output file " + file, e);
                }
            }
        }

        @Override
        public String toString()
        {
            return memory != null ? "in memory" : String.valueOf(file);
        }
    }
}
