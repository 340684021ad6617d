package dev.ferry.device.ipc;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * The importer's side of an {@link IpcExportLease}: a shared lock on the lease file, held while
 * the mapping is open. {@code fcntl} locks belong to the process, so opens of the same lease within
 * one process share one lock and a count.
 */
public final class IpcImportLease
{
    private static final long ACQUIRE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final Map<Path, Held> HELD = new HashMap<>();

    private final Path path;
    private boolean released;

    private IpcImportLease(Path path)
    {
        this.path = path;
    }

    /** Takes a shared hold on the lease; fails when the exporter has already released the memory. */
    public static IpcImportLease acquire(Path path, String handleDescription)
    {
        requireNonNull(path, "path is null");
        synchronized (HELD) {
            Held held = HELD.get(path);
            if (held == null) {
                held = lock(path, handleDescription);
                HELD.put(path, held);
            }
            held.count++;
            return new IpcImportLease(path);
        }
    }

    private static FileLock tryShared(FileChannel channel)
            throws IOException
    {
        try {
            return channel.tryLock(0, Long.MAX_VALUE, true);
        }
        catch (OverlappingFileLockException e) {
            // The exporter is this very process, checking for importers under its exclusive lock right now.
            return null;
        }
    }

    private static Held lock(Path path, String handleDescription)
    {
        FileChannel channel = null;
        try {
            channel = FileChannel.open(path, StandardOpenOption.READ);
            long deadline = System.nanoTime() + ACQUIRE_TIMEOUT_NANOS;
            FileLock lock;
            // The exporter holds the exclusive lock only briefly while checking for importers.
            while ((lock = tryShared(channel)) == null) {
                if (System.nanoTime() > deadline) {
                    throw new FerryException(ErrorCategory.EXTERNAL, "Timed out waiting for IPC lease " + path + " of " + handleDescription);
                }
                Thread.sleep(1);
            }
            if (!Files.exists(path)) {
                lock.release();
                throw gone(path, handleDescription, null);
            }
            return new Held(channel, lock);
        }
        catch (NoSuchFileException e) {
            closeQuietly(channel);
            throw gone(path, handleDescription, e);
        }
        catch (IOException e) {
            closeQuietly(channel);
            throw new FerryException(ErrorCategory.EXTERNAL, "Cannot take IPC lease " + path + " of " + handleDescription + ": " + e.getMessage(), e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closeQuietly(channel);
            throw new FerryException(ErrorCategory.EXTERNAL, "Interrupted while taking IPC lease of " + handleDescription, e);
        }
        catch (RuntimeException e) {
            closeQuietly(channel);
            throw e;
        }
    }

    private static FerryException gone(Path path, String handleDescription, Throwable cause)
    {
        return new FerryException(ErrorCategory.USER_ERROR, "Cannot open " + handleDescription + ": its exporter already released the memory (lease " + path + " is gone)", cause);
    }

    /** Drops this hold; the lock goes when the last hold in this process is dropped. Idempotent. */
    public void release()
    {
        synchronized (HELD) {
            if (released) {
                return;
            }
            released = true;
            Held held = HELD.get(path);
            if (held != null && --held.count == 0) {
                HELD.remove(path);
                closeQuietly(held.channel); // closing the channel releases the lock
            }
        }
    }

    private static void closeQuietly(FileChannel channel)
    {
        if (channel == null) {
            return;
        }
        try {
            channel.close();
        }
        catch (IOException ignored) {
            // Closing a read-only lease channel cannot lose data; the lock is gone either way.
        }
    }

    private static final class Held
    {
        private final FileChannel channel;
        @SuppressWarnings("unused") // held for its side effect until the channel closes
        private final FileLock lock;
        private int count;

        Held(FileChannel channel, FileLock lock)
        {
            this.channel = channel;
            this.lock = lock;
        }
    }
}
