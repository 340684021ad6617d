package dev.ferry.device.cufile;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.device.memory.NativeMemory;
import dev.ferry.device.spi.EngineRead;
import dev.ferry.device.spi.FileReadEngine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static java.util.Objects.requireNonNull;

/**
 * A file opened for reads straight into device buffers (cuFile where it works). The read path is
 * decided once, at open, and {@link #verdict()} says which it is and why.
 *
 * <p>Direct I/O needs file offset, size and buffer address aligned to 4 KiB. {@link #read} takes
 * any range: when the path needs alignment and the range is not aligned, it reads the aligned
 * superset into a bounce buffer on the same device and copies the wanted bytes out (KvikIO's
 * "round down and drop the prefix"). {@link #readAligned} is the raw form and refuses unaligned
 * ranges. Short reads are completed; a file that ends early is an error naming file and offset.
 */
public final class DeviceFile
        implements AutoCloseable
{
    public static final int DIRECT_IO_ALIGNMENT = 4096;

    private final DeviceRuntime runtime;
    private final Path path;
    private final FileReadEngine engine;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicLong bytesRead = new AtomicLong();
    private final AtomicLong bounceReads = new AtomicLong();

    public DeviceFile(DeviceRuntime runtime, Path path, FileReadEngine engine)
    {
        this.runtime = requireNonNull(runtime, "runtime is null");
        this.path = requireNonNull(path, "path is null");
        this.engine = requireNonNull(engine, "engine is null");
    }

    public Path path()
    {
        return path;
    }

    public ReadPathVerdict verdict()
    {
        return engine.verdict();
    }

    /** The file's current size, through the open descriptor. */
    public long size()
    {
        checkOpen();
        try {
            return engine.size();
        }
        catch (IOException e) {
            throw new FerryException(ErrorCategory.EXTERNAL, "Cannot read the size of file " + path + ": " + e.getMessage(), e);
        }
    }

    public long bytesRead()
    {
        return bytesRead.get();
    }

    /** Reads that needed the aligned superset and a trimming copy. */
    public long bounceReads()
    {
        return bounceReads.get();
    }

    /** Reads exactly {@code length} bytes at {@code fileOffset} into {@code target} at {@code targetOffset}. */
    public void read(long fileOffset, long length, DeviceBuffer target, long targetOffset)
    {
        checkRequest(fileOffset, length, target, targetOffset);
        NativeMemory memory = target.memory();
        long memoryOffset = target.memoryOffset() + targetOffset;
        if (!engine.requiresAlignment() || isAligned(fileOffset, length, memory, memoryOffset)) {
            readFully(fileOffset, length, length, memory, memoryOffset, target);
            return;
        }
        int alignment = engine.alignment();
        long start = fileOffset - fileOffset % alignment;
        long end = roundUp(fileOffset + length, alignment);
        bounceReads.incrementAndGet();
        try (DeviceBuffer bounce = runtime.allocatorFor(target.location()).allocate(end - start)) {
            // The tail of the superset may lie past end of file; only the wanted bytes must arrive.
            readFully(start, fileOffset + length - start, end - start, bounce.memory(), bounce.memoryOffset(), target);
            try (DeviceStream stream = runtime.newStream(target.location().isDevice() ? target.location().device() : 0)) {
                stream.copy(bounce, fileOffset - start, target, targetOffset, length);
            }
        }
    }

    /**
     * The raw direct read: file offset, length and target offset must all be multiples of
     * {@value #DIRECT_IO_ALIGNMENT}, as cuFile's direct path requires. (Should the allocation itself
     * not start on a 4 KiB boundary, the read still lands correctly, through the bounce path.)
     */
    public void readAligned(long fileOffset, long length, DeviceBuffer target, long targetOffset)
    {
        checkRequest(fileOffset, length, target, targetOffset);
        int alignment = Math.max(DIRECT_IO_ALIGNMENT, engine.alignment());
        if (fileOffset % alignment != 0 || length % alignment != 0 || targetOffset % alignment != 0) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, "Misaligned direct read of file " + path + ": file offset " + fileOffset + ", length " + length
                    + " and target offset " + targetOffset + " in " + target.name() + " must all be multiples of " + alignment);
        }
        read(fileOffset, length, target, targetOffset);
    }

    /**
     * Reads several ranges. Aligned ranges go to the engine together (one cuFile batch on the
     * CUDA backend); the others are read one by one through {@link #read}.
     */
    public void readBatch(List<FileReadRequest> requests)
    {
        requireNonNull(requests, "requests is null");
        List<FileReadRequest> direct = new ArrayList<>();
        List<EngineRead> engineReads = new ArrayList<>();
        for (FileReadRequest request : requests) {
            checkRequest(request.fileOffset(), request.length(), request.target(), request.targetOffset());
        }
        for (FileReadRequest request : requests) {
            NativeMemory memory = request.target().memory();
            long memoryOffset = request.target().memoryOffset() + request.targetOffset();
            if (!engine.requiresAlignment() || isAligned(request.fileOffset(), request.length(), memory, memoryOffset)) {
                direct.add(request);
                engineReads.add(new EngineRead(request.fileOffset(), request.length(), memory, memoryOffset));
            }
            else {
                read(request.fileOffset(), request.length(), request.target(), request.targetOffset());
            }
        }
        if (engineReads.isEmpty()) {
            return;
        }
        long[] results;
        try {
            results = engine.readBatch(engineReads);
        }
        catch (IOException e) {
            throw new FerryException(ErrorCategory.EXTERNAL, "Batch read of " + engineReads.size() + " ranges of file " + path + " failed: " + e.getMessage(), e);
        }
        for (int i = 0; i < direct.size(); i++) {
            FileReadRequest request = direct.get(i);
            EngineRead read = engineReads.get(i);
            long done = results[i];
            if (done < 0 || done > read.length()) {
                throw new FerryException(ErrorCategory.EXTERNAL, "Batch read of [" + read.fileOffset() + ", +" + read.length() + ") of file " + path + " returned " + done);
            }
            bytesRead.addAndGet(done);
            if (done < read.length()) {
                // A short batch entry: finish it like any short read.
                readFully(read.fileOffset() + done, read.length() - done, read.length() - done, read.target(), read.targetOffset() + done, request.target());
            }
        }
    }

    private void readFully(long fileOffset, long required, long requested, NativeMemory memory, long memoryOffset, DeviceBuffer target)
    {
        long done = 0;
        while (done < required) {
            long count;
            try {
                count = engine.read(fileOffset + done, requested - done, memory, memoryOffset + done);
            }
            catch (IOException e) {
                throw new FerryException(ErrorCategory.EXTERNAL, "Reading [" + (fileOffset + done) + ", +" + (requested - done) + ") of file " + path
                        + " into " + target.name() + " failed (" + engine.verdict().path() + " path): " + e.getMessage(), e);
            }
            if (count <= 0 || (engine.requiresAlignment() && count % engine.alignment() != 0 && done + count < required)) {
                throw endedEarly(fileOffset, required, done + Math.max(0, count));
            }
            done += count;
        }
        bytesRead.addAndGet(required);
    }

    private FerryException endedEarly(long fileOffset, long required, long got)
    {
        boolean stillThere = Files.exists(path);
        return new FerryException(ErrorCategory.EXTERNAL, "File " + path + " ended at offset " + (fileOffset + got) + " while reading [" + fileOffset + ", +" + required
                + "): it was " + (stillThere ? "truncated" : "removed (the path no longer exists) or truncated") + " during the read; got " + got + " of " + required + " bytes");
    }

    private void checkRequest(long fileOffset, long length, DeviceBuffer target, long targetOffset)
    {
        checkOpen();
        requireNonNull(target, "target is null");
        if (fileOffset < 0 || length <= 0) {
            throw new IllegalArgumentException("Bad read of file " + path + ": offset " + fileOffset + " and length " + length + " (offset must be >= 0, length > 0)");
        }
        target.checkRange("read file " + path + " into", targetOffset, length);
        long size = size();
        if (fileOffset > size || length > size - fileOffset) {
            String removed = Files.exists(path) ? "" : "; the path no longer exists: the file was removed";
            throw new FerryException(ErrorCategory.USER_ERROR, "Range [" + fileOffset + ", +" + length + ") lies beyond the end of file " + path + " (" + size + " bytes" + removed + ")");
        }
    }

    private boolean isAligned(long fileOffset, long length, NativeMemory memory, long memoryOffset)
    {
        int alignment = engine.alignment();
        return fileOffset % alignment == 0 && length % alignment == 0 && engine.isAligned(memory, memoryOffset);
    }

    private static long roundUp(long value, int alignment)
    {
        return (value + alignment - 1) / alignment * alignment;
    }

    private void checkOpen()
    {
        if (closed.get()) {
            throw new IllegalStateException("Use after close: device file " + path + " was already closed");
        }
    }

    /** Closes the descriptor(s) and deregisters the file. Idempotent. */
    @Override
    public void close()
    {
        if (closed.compareAndSet(false, true)) {
            try {
                engine.close();
            }
            catch (IOException e) {
                throw new FerryException(ErrorCategory.EXTERNAL, "Closing device file " + path + " failed: " + e.getMessage(), e);
            }
        }
    }

    @Override
    public String toString()
    {
        return "device file " + path + " via " + engine.verdict();
    }
}
