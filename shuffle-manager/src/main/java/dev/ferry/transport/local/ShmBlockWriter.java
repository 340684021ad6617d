package dev.ferry.transport.local;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static java.util.Objects.requireNonNull;

/**
 * The writer's half of HOST_SHM: publishes host-resident blocks as files in shared memory
 * ({@code /dev/shm}), created atomically with mode 0600 under an unguessable name, so only
 * processes of the same user that were given the handle can map them. Files are deleted on
 * {@link #release} or {@link #close}. Thread-safe.
 */
public final class ShmBlockWriter
        implements AutoCloseable
{
    private static final Logger log = LoggerFactory.getLogger(ShmBlockWriter.class);

    private final Path directory;
    private final Set<String> published = ConcurrentHashMap.newKeySet();

    public ShmBlockWriter(Path directory)
    {
        this.directory = requireNonNull(directory, "directory is null");
    }

    /** Writes {@code block}'s remaining bytes (without moving its position) and returns the handle a reader maps. */
    public ShmBlockHandle publish(ByteBuffer block)
    {
        requireNonNull(block, "block is null");
        if (!block.hasRemaining()) {
            throw new IllegalArgumentException("Cannot publish an empty block");
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

    /** Deletes the block's file; readers that already mapped it keep their mapping. */
    public void release(ShmBlockHandle handle)
    {
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
    }
}
