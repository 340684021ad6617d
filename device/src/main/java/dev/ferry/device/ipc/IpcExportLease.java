package dev.ferry.device.ipc;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static java.util.Objects.requireNonNull;

/**
 * The exporter's side of an IPC lease. Each export owns a small lease file; every importer holds a
 * shared {@code fcntl} lock on it while its mapping is open. The exporter may free the memory only
 * when it can take the exclusive lock, that is when no importer is left. The kernel drops the locks
 * of a process that dies, so a crashed importer never pins memory forever.
 *
 * <p>Release protocol: take the exclusive lock, delete the file, then drop the lock. An importer
 * that was waiting for its shared lock finds the file gone and refuses the handle.
 */
public final class IpcExportLease
{
    private static final Logger log = LoggerFactory.getLogger(IpcExportLease.class);

    private final Path path;

    private IpcExportLease(Path path)
    {
        this.path = requireNonNull(path, "path is null");
    }

    public static IpcExportLease create(Path directory)
    {
        return create(directory, "ferry-ipc-lease");
    }

    /** A lease file {@code filePrefix-<pid>-<random>} in {@code directory} (a prefix its readers' name checks accept). */
    public static IpcExportLease create(Path directory, String filePrefix)
    {
        return new IpcExportLease(SharedMemoryFiles.create(directory, filePrefix));
    }

    public Path path()
    {
        return path;
    }

    /** Ends the lease if no importer holds it; returns whether the memory may be freed now. */
    public boolean tryRelease()
    {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            FileLock lock;
            try {
                lock = channel.tryLock(0, Long.MAX_VALUE, false);
            }
            catch (OverlappingFileLockException e) {
                // The importer is this very process (a same-JVM reader's shared lock): still held.
                return false;
            }
            if (lock == null) {
                return false;
            }
            try {
                Files.deleteIfExists(path);
            }
            finally {
                lock.release();
            }
            return true;
        }
        catch (NoSuchFileException e) {
            // Someone removed the lease file (a /dev/shm cleanup): no importer can attach any more, and
            // one already attached can no longer be seen. Free, but say so.
            log.warn("IPC lease {} disappeared; freeing its memory without being able to check for importers", path);
            return true;
        }
        catch (IOException e) {
            throw new FerryException(ErrorCategory.EXTERNAL, "Cannot check IPC lease " + path + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String toString()
    {
        return "IPC lease " + path;
    }
}
