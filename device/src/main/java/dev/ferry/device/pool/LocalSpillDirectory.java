package dev.ferry.device.pool;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicLong;

import static java.util.Objects.requireNonNull;

/**
 * Spill files in one local directory, optionally capped in bytes. The cap is checked before a
 * write, and a real "no space left" from the disk is reported the same way: an error naming the
 * file, with nothing half-written left behind.
 */
public final class LocalSpillDirectory
        implements SpillFileStore
{
    private final Path directory;
    private final long limit;
    private final AtomicLong used = new AtomicLong();

    /** @param limit most bytes held at once; 0 means only the disk limits it */
    public LocalSpillDirectory(Path directory, long limit)
    {
        this.directory = requireNonNull(directory, "directory is null");
        if (limit < 0) {
            throw new IllegalArgumentException("limit must not be negative: " + limit);
        }
        this.limit = limit;
        try {
            Files.createDirectories(directory);
        }
        catch (IOException e) {
            throw new FerryException(ErrorCategory.EXTERNAL, "Cannot create spill directory " + directory + ": " + e, e);
        }
    }

    @Override
    public Path write(String name, ByteBuffer data)
    {
        Path file = directory.resolve(name);
        long length = data.remaining();
        long before = used.getAndAdd(length);
        if (limit > 0 && before + length > limit) {
            used.addAndGet(-length);
            throw new FerryException(ErrorCategory.INSUFFICIENT_RESOURCES, "Spill directory " + directory + " is full: writing " + length + " bytes to file " + file
                    + " would exceed its limit of " + limit + " bytes (" + before + " in use)");
        }
        boolean success = false;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            while (data.hasRemaining()) {
                channel.write(data);
            }
            success = true;
            return file;
        }
        catch (IOException e) {
            throw new FerryException(ErrorCategory.INSUFFICIENT_RESOURCES, "Cannot spill " + length + " bytes to file " + file + ": " + e, e);
        }
        finally {
            if (!success) {
                used.addAndGet(-length);
                deleteQuietly(file);
            }
        }
    }

    @Override
    public ByteBuffer read(Path file, long length)
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            if (channel.size() != length) {
                throw new FerryException(ErrorCategory.EXTERNAL, "Spill file " + file + " holds " + channel.size() + " bytes, expected " + length + ": it was truncated or replaced");
            }
            ByteBuffer data = ByteBuffer.allocate(Math.toIntExact(length));
            while (data.hasRemaining()) {
                if (channel.read(data, data.position()) < 0) {
                    throw new FerryException(ErrorCategory.EXTERNAL, "Spill file " + file + " ended at offset " + data.position() + " of " + length);
                }
            }
            return data.flip();
        }
        catch (NoSuchFileException e) {
            throw new FerryException(ErrorCategory.EXTERNAL, "Spill file " + file + " was removed before it was read back", e);
        }
        catch (IOException e) {
            throw new FerryException(ErrorCategory.EXTERNAL, "Cannot read spill file " + file + ": " + e, e);
        }
    }

    @Override
    public void delete(Path file)
    {
        try {
            long size = Files.size(file);
            Files.delete(file);
            used.addAndGet(-size);
        }
        catch (IOException e) {
            throw new FerryException(ErrorCategory.EXTERNAL, "Cannot delete spill file " + file + ": " + e, e);
        }
    }

    @Override
    public long usedBytes()
    {
        return used.get();
    }

    private static void deleteQuietly(Path file)
    {
        try {
            Files.deleteIfExists(file);
        }
        catch (IOException ignored) {
            // The write already failed; that error is the one the caller needs.
        }
    }
}
