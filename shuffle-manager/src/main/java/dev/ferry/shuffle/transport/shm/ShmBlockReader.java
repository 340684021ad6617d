package dev.ferry.shuffle.transport.shm;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.device.ipc.IpcImportLease;
import dev.ferry.device.ipc.SharedMappings;
import dev.ferry.shuffle.transport.metrics.RouteCounters;
import dev.ferry.topology.route.Route;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.ForeignAllocation;
import org.apache.arrow.memory.util.MemoryUtil;

import static java.util.Objects.requireNonNull;

/**
 * The reader's half of HOST_SHM. {@link #open} hands a block over without copying it: a block of
 * at least {@link #MAP_MIN_BYTES} is mapped (copy-on-write, so a consumer that writes into it
 * never touches the peer's file) and returned as an Arrow buffer whose last release unmaps it;
 * the peer may delete the file meanwhile, the mapping keeps its pages. Reading a mapped page costs
 * a minor fault per 64 KiB (the kernel maps neighbouring pages of a file on each fault), far less
 * than copying the page. Smaller blocks are copied with one positional read instead, since for a
 * few KiB the map and unmap system calls cost more than the copy. {@link #read} always copies into
 * the caller's buffer. Before either, it checks that the handle names a Ferry block file in its
 * own directory, that the file is a regular file (no symlink) owned by this user with no group or
 * other access, and that the block's range lies inside the file, so a bad handle is an error,
 * never a read of something else. Each block is counted on {@code HOST_SHM}. Thread-safe.
 */
public final class ShmBlockReader
{
    private static final Set<PosixFilePermission> OWNER_ONLY = EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);

    /** Blocks from this size up are mapped rather than copied. */
    public static final long MAP_MIN_BYTES = 256 * 1024;

    private final Path directory;
    private final RouteCounters counters;

    public ShmBlockReader(Path directory, RouteCounters counters)
    {
        this.directory = requireNonNull(directory, "directory is null");
        this.counters = requireNonNull(counters, "counters is null");
    }

    /** Copies the block into {@code target}'s remaining bytes, which must be exactly the block's length; advances {@code target}. */
    public void read(ShmBlockHandle handle, ByteBuffer target)
    {
        requireNonNull(handle, "handle is null");
        requireNonNull(target, "target is null");
        if (target.remaining() != handle.length()) {
            throw new IllegalArgumentException("Target has " + target.remaining() + " bytes left, block " + handle.fileName() + " has " + handle.length());
        }
        Path file = directory.resolve(handle.fileName());
        if (handle.leaseName().isPresent() || ShmNames.isArena(handle.fileName())) {
            try (Leased leased = openLeased(handle, file)) {
                target.put(leased.slice().buffer());
            }
            counters.recordBlock(Route.HOST_SHM, handle.length());
            return;
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            checkFile(file, handle);
            readFully(channel, file, handle, target);
        }
        catch (IOException e) {
            throw new FerryException(ErrorCategory.EXTERNAL, "Cannot read shared-memory block " + file + ": " + e.getMessage()
                    + " (the writer may have released it or exited)", e);
        }
        counters.recordBlock(Route.HOST_SHM, handle.length());
    }

    /**
     * The block as a buffer of {@code allocator} (accounted there until released): mapped from the
     * peer's file, or copied for a small block. The caller owns the returned reference.
     */
    public ArrowBuf open(ShmBlockHandle handle, BufferAllocator allocator)
    {
        requireNonNull(handle, "handle is null");
        requireNonNull(allocator, "allocator is null");
        if (handle.length() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("Block " + handle.fileName() + " has " + handle.length() + " bytes, more than one buffer holds");
        }
        Path file = directory.resolve(handle.fileName());
        if (handle.leaseName().isPresent() || ShmNames.isArena(handle.fileName())) {
            ArrowBuf block = wrapLeased(openLeased(handle, file), allocator);
            counters.recordBlock(Route.HOST_SHM, handle.length());
            return block;
        }
        ArrowBuf block;
        // PRIVATE mappings need a channel open for reading and writing; the peer's file is never written (copy on write).
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            checkFile(file, handle);
            if (handle.length() >= MAP_MIN_BYTES) {
                MappedByteBuffer mapping = channel.map(FileChannel.MapMode.PRIVATE, handle.offset(), handle.length());
                try {
                    block = MappedMemory.wrap(allocator, mapping, () -> {});
                }
                catch (RuntimeException e) {
                    MappedMemory.unmap(mapping);
                    throw e;
                }
            }
            else {
                block = allocator.buffer(handle.length());
                try {
                    readFully(channel, file, handle, block.nioBuffer(0, (int) handle.length()));
                }
                catch (IOException | RuntimeException e) {
                    block.close();
                    throw e;
                }
            }
        }
        catch (IOException e) {
            throw new FerryException(ErrorCategory.EXTERNAL, "Cannot open shared-memory block " + file + ": " + e.getMessage()
                    + " (the writer may have released it or exited)", e);
        }
        counters.recordBlock(Route.HOST_SHM, handle.length());
        return block;
    }

    private static void readFully(FileChannel channel, Path file, ShmBlockHandle handle, ByteBuffer target)
            throws IOException
    {
        long position = handle.offset();
        long end = handle.offset() + handle.length();
        while (position < end) {
            int read = channel.read(target, position);
            if (read < 0) {
                throw refused(file, "ended at byte offset " + (position - handle.offset()) + " of " + handle.length());
            }
            position += read;
        }
    }

    /** A range of the writer's staging arena with the writer's lease on it held, through this process's kept mapping of the arena. */
    private record Leased(SharedMappings.Slice slice, IpcImportLease lease)
            implements AutoCloseable
    {
        @Override
        public void close()
        {
            try {
                slice.close();
            }
            finally {
                lease.release();
            }
        }
    }

    /**
     * Takes the writer's lease on the range first (it fails if the writer has already reused or
     * released the range), then checks the arena file as any block file and maps it, or reuses this
     * process's mapping of it.
     */
    private Leased openLeased(ShmBlockHandle handle, Path file)
    {
        if (!ShmNames.isArena(handle.fileName()) || handle.leaseName().isEmpty()) {
            throw refused(file, "a range of a staging arena is read only under its lease, and only an arena's range has one (lease: " + handle.leaseName().orElse("none") + ")");
        }
        Path leaseFile = directory.resolve(handle.leaseName().get());
        IpcImportLease lease = IpcImportLease.acquire(leaseFile, "shared-memory block " + file + " [" + handle.offset() + ", +" + handle.length() + ")");
        boolean success = false;
        try {
            if (!LeaseRange.grants(Files.readAllBytes(leaseFile), handle.offset(), handle.length())) {
                throw refused(file, "lease " + leaseFile.getFileName() + " does not grant the range [" + handle.offset() + ", +" + handle.length() + ")");
            }
            checkFile(file, handle);
            Leased leased = new Leased(SharedMappings.process().open(file, ShmNames.ownerPid(handle.fileName()), handle.offset(), handle.length()), lease);
            success = true;
            return leased;
        }
        catch (IOException e) {
            throw new FerryException(ErrorCategory.EXTERNAL, "Cannot open shared-memory block " + file + ": " + e.getMessage()
                    + " (the writer may have released it or exited)", e);
        }
        finally {
            if (!success) {
                lease.release();
            }
        }
    }

    /** The leased range as an Arrow buffer whose release drops the mapping's use and the lease, once. */
    private static ArrowBuf wrapLeased(Leased leased, BufferAllocator allocator)
    {
        ByteBuffer bytes = leased.slice().buffer();
        AtomicBoolean released = new AtomicBoolean();
        try {
            return allocator.wrapForeignAllocation(new ForeignAllocation(bytes.capacity(), MemoryUtil.getByteBufferAddress(bytes))
            {
                @Override
                protected void release0()
                {
                    if (released.compareAndSet(false, true)) {
                        leased.close();
                    }
                }
            });
        }
        catch (RuntimeException e) {
            leased.close();
            throw e;
        }
    }

    private static void checkFile(Path file, ShmBlockHandle handle)
            throws IOException
    {
        PosixFileAttributes attributes = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        long size = attributes.size();
        if (!attributes.isRegularFile()) {
            throw refused(file, "not a regular file");
        }
        if (!attributes.permissions().equals(OWNER_ONLY)) {
            throw refused(file, "mode is " + PosixFilePermissions.toString(attributes.permissions()) + ", expected rw-------");
        }
        String user = System.getProperty("user.name");
        if (!attributes.owner().getName().equals(user)) {
            throw refused(file, "owned by " + attributes.owner().getName() + ", not " + user);
        }
        if (handle.offset() > size || handle.length() > size - handle.offset()) {
            throw refused(file, "block [" + handle.offset() + ", +" + handle.length() + ") lies outside the file's " + size + " bytes");
        }
    }

    private static FerryException refused(Path file, String why)
    {
        return new FerryException(ErrorCategory.EXTERNAL, "Refusing shared-memory block " + file + ": " + why);
    }
}
