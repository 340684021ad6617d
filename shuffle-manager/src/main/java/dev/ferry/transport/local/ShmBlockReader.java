package dev.ferry.transport.local;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.topology.route.Route;
import dev.ferry.transport.metrics.RouteCounters;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.Files;
import java.util.EnumSet;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * The reader's half of HOST_SHM: copies a published block out of its shared-memory file with one
 * positional read (no mapping: mapping a block costs a page fault per page). Before reading it
 * checks that the handle names a Ferry block file in its own directory, that the file is a
 * regular file (no symlink) owned by this user with no group or other access, and that the
 * block's range lies inside the file, so a bad handle is an error, never a read of something else. Each block is counted on {@code HOST_SHM}. Thread-safe.
 */
public final class ShmBlockReader
{
    private static final Set<PosixFilePermission> OWNER_ONLY = EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);

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
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            checkFile(file, handle, channel.size());
            // One copy out of the shared pages; a read() costs no page faults, unlike mapping the file.
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
        catch (IOException e) {
            throw new FerryException(ErrorCategory.EXTERNAL, "Cannot read shared-memory block " + file + ": " + e.getMessage()
                    + " (the writer may have released it or exited)", e);
        }
        counters.recordBlock(Route.HOST_SHM, handle.length());
    }

    private static void checkFile(Path file, ShmBlockHandle handle, long size)
            throws IOException
    {
        PosixFileAttributes attributes = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
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
