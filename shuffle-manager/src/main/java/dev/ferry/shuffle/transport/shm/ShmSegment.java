package dev.ferry.shuffle.transport.shm;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * Host memory that is a private shared-memory file from the start, so that a map output written
 * into it can be handed to same-node readers (HOST_SHM) by name, without the publish copy. The file
 * is created atomically with mode 0600 under an unguessable name ({@link ShmNames}), filled to its
 * full size before it is mapped (tmpfs allocates its pages there, so a full /dev/shm is an
 * {@link IOException} now, not a SIGBUS on a later write into the mapping), and mapped once,
 * read-write. The returned buffer is the owner's reference: when the last reference (the owner's
 * and every block slice lent out) is released the mapping is unmapped and the file deleted,
 * exactly once. Readers that mapped the file themselves keep their pages after the delete.
 */
public final class ShmSegment
{
    private static final Logger LOG = LoggerFactory.getLogger(ShmSegment.class);
    private static final int FILL_CHUNK = 1 << 20;
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(FILL_CHUNK).asReadOnlyBuffer();

    private final ArrowBuf buffer;
    private final String fileName;

    private ShmSegment(ArrowBuf buffer, String fileName)
    {
        this.buffer = buffer;
        this.fileName = fileName;
    }

    /** A new segment of {@code bytes} (1 to 2^31-1: one mapping) in {@code directory}, accounted in {@code allocator}. */
    public static ShmSegment allocate(BufferAllocator allocator, Path directory, long bytes)
            throws IOException
    {
        requireNonNull(allocator, "allocator is null");
        requireNonNull(directory, "directory is null");
        if (bytes <= 0 || bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("A shared-memory segment holds 1 to " + Integer.MAX_VALUE + " bytes, not " + bytes);
        }
        String name = ShmNames.newName();
        Path file = directory.resolve(name);
        MappedByteBuffer mapping;
        try (FileChannel channel = FileChannel.open(file, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
            fill(channel, bytes);
            mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, bytes);
        }
        catch (IOException | RuntimeException e) {
            deleteQuietly(file);
            throw e;
        }
        try {
            return new ShmSegment(MappedMemory.wrap(allocator, mapping, () -> deleteQuietly(file)), name);
        }
        catch (RuntimeException e) {
            MappedMemory.unmap(mapping);
            deleteQuietly(file);
            throw e;
        }
    }

    private static void fill(FileChannel channel, long bytes)
            throws IOException
    {
        long position = 0;
        while (position < bytes) {
            ByteBuffer zeros = ZEROS.duplicate();
            zeros.limit((int) Math.min(FILL_CHUNK, bytes - position));
            position += channel.write(zeros, position);
        }
    }

    /** The owner's reference to the mapped bytes; closing it (and every slice) unmaps and deletes the file. */
    public ArrowBuf buffer()
    {
        return buffer;
    }

    public String fileName()
    {
        return fileName;
    }

    /** The handle a same-node reader resolves to {@code length} bytes at {@code offset} of this segment. */
    public ShmBlockHandle handle(long offset, long length)
    {
        if (offset < 0 || length <= 0 || offset > buffer.capacity() - length) {
            throw new IllegalArgumentException("Block [" + offset + ", +" + length + ") outside the segment's " + buffer.capacity() + " bytes");
        }
        return new ShmBlockHandle(fileName, offset, length);
    }

    private static void deleteQuietly(Path file)
    {
        try {
            Files.deleteIfExists(file);
        }
        catch (IOException e) {
            LOG.warn("Could not delete shared-memory segment {}: {}", file, e.toString());
        }
    }
}
