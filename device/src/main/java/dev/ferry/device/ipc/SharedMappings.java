package dev.ferry.device.ipc;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import static java.util.Objects.requireNonNull;

/**
 * Mappings of other processes' {@link SharedArena} files that this process keeps across uses, as a
 * CUDA IPC user keeps an exporter's opened allocation (opening one is costly, so UCX and RAPIDS
 * cache them): a range read again lies in pages this process has already mapped, so it costs no
 * page faults and no map or unmap system calls. Each file is mapped whole, once, shared and
 * read-write (an importer may write into a range it leases, as into an opened IPC buffer).
 *
 * <p>Safety rests on the owner's lease, not on the mapping: a caller reads a range only while it
 * holds the owner's {@link IpcImportLease} on it, and the owner reuses a range only after every
 * lease on it has ended. A mapping is unmapped when no slice of it is open and its file is gone or
 * was replaced, or its owner process has exited (checked when another file is mapped and on
 * {@link #sweep}, which executors call when a peer departs), when more than {@code maxFiles} files
 * are mapped (the least recently used idle one), or at {@link #close}; so the pages of a departed
 * owner's arena are not kept alive by this process. Thread-safe.
 */
public final class SharedMappings
        implements AutoCloseable
{
    private static final SharedMappings PROCESS = new SharedMappings(64);

    private final int maxFiles;
    // Access order: the first idle entry is the least recently used one.
    private final Map<Path, Mapping> mappings = new LinkedHashMap<>(16, 0.75f, true);
    private long mapped;
    private long reused;
    private boolean closed;

    public SharedMappings(int maxFiles)
    {
        if (maxFiles < 1) {
            throw new IllegalArgumentException("maxFiles must be positive: " + maxFiles);
        }
        this.maxFiles = maxFiles;
    }

    /** The mappings of this process. */
    public static SharedMappings process()
    {
        return PROCESS;
    }

    /**
     * {@code length} bytes at {@code offset} of {@code file}, which process {@code ownerPid} made,
     * through this process's mapping of the whole file (made now if there is none, or if the file
     * was replaced since). The range must lie
     * inside the file (else {@link IllegalArgumentException}), which must be a regular file of at most
     * {@code Integer.MAX_VALUE} bytes.
     */
    public synchronized Slice open(Path file, long ownerPid, long offset, long length)
            throws IOException
    {
        requireNonNull(file, "file is null");
        if (closed) {
            throw new IllegalStateException("Shared mappings are closed");
        }
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!attributes.isRegularFile()) {
            throw new IOException(file + " is not a regular file");
        }
        Mapping mapping = mappings.get(file);
        if (mapping != null && (!Objects.equals(mapping.fileKey, attributes.fileKey()) || mapping.size != attributes.size())) {
            retire(mapping);
            mapping = null;
        }
        if (mapping == null) {
            sweepIdle();
            mapping = map(file, ownerPid, attributes);
            mappings.put(file, mapping);
            mapped++;
        }
        else {
            reused++;
        }
        if (offset < 0 || length < 0 || offset > mapping.size - length) {
            throw new IllegalArgumentException("Range [" + offset + ", +" + length + ") lies outside " + file + " (" + mapping.size + " bytes)");
        }
        mapping.users++;
        return new Slice(mapping, mapping.buffer.slice((int) offset, (int) length));
    }

    private static Mapping map(Path file, long ownerPid, BasicFileAttributes attributes)
            throws IOException
    {
        if (attributes.size() > Integer.MAX_VALUE) {
            throw new IOException(file + " has " + attributes.size() + " bytes, more than one mapping holds");
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            return new Mapping(file, ownerPid, attributes.fileKey(), attributes.size(), channel.map(FileChannel.MapMode.READ_WRITE, 0, attributes.size()));
        }
    }

    /** Unmaps idle mappings whose file is gone or replaced, then the least recently used idle ones beyond {@code maxFiles - 1}. */
    private void sweepIdle()
    {
        List<Mapping> idle = new ArrayList<>();
        for (Mapping mapping : mappings.values()) {
            if (mapping.users == 0) {
                idle.add(mapping);
            }
        }
        for (Mapping mapping : idle) {
            if (!current(mapping)) {
                retire(mapping);
            }
        }
        for (Mapping mapping : idle) {
            if (mappings.size() < maxFiles) {
                break;
            }
            if (mappings.get(mapping.file) == mapping) {
                retire(mapping);
            }
        }
    }

    /** Whether the mapped file is still there, the same file, and its owner alive. */
    private static boolean current(Mapping mapping)
    {
        if (!ProcessHandle.of(mapping.ownerPid).map(ProcessHandle::isAlive).orElse(false)) {
            return false;
        }
        try {
            return Objects.equals(Files.readAttributes(mapping.file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey(), mapping.fileKey);
        }
        catch (NoSuchFileException e) {
            return false;
        }
        catch (IOException e) {
            return false;
        }
    }

    private void retire(Mapping mapping)
    {
        mappings.remove(mapping.file, mapping);
        mapping.retired = true;
        if (mapping.users == 0) {
            Unmapper.unmap(mapping.buffer);
        }
    }

    private synchronized void release(Mapping mapping)
    {
        mapping.users--;
        if (mapping.users == 0 && (mapping.retired || closed)) {
            mapping.retired = true;
            Unmapper.unmap(mapping.buffer);
        }
    }

    /** Files mapped so far (a count, not the current number). */
    public synchronized long mapped()
    {
        return mapped;
    }

    /** Opens served by a mapping already there. */
    public synchronized long reused()
    {
        return reused;
    }

    /** Files mapped now. */
    public synchronized int files()
    {
        return mappings.size();
    }

    /** Unmaps the idle mappings of files that are gone or whose owner exited; what is in use is unmapped when its last slice closes. */
    public synchronized void sweep()
    {
        for (Mapping mapping : new ArrayList<>(mappings.values())) {
            if (mapping.users == 0 && !current(mapping)) {
                retire(mapping);
            }
        }
    }

    /** Unmaps every idle mapping; mappings in use go when their last slice closes. */
    @Override
    public synchronized void close()
    {
        closed = true;
        for (Mapping mapping : new ArrayList<>(mappings.values())) {
            retire(mapping);
        }
    }

    private static final class Mapping
    {
        final Path file;
        final long ownerPid;
        final Object fileKey;
        final long size;
        final MappedByteBuffer buffer;
        int users;
        boolean retired;

        Mapping(Path file, long ownerPid, Object fileKey, long size, MappedByteBuffer buffer)
        {
            this.file = file;
            this.ownerPid = ownerPid;
            this.fileKey = fileKey;
            this.size = size;
            this.buffer = buffer;
        }
    }

    /** A range of a mapped file, usable until closed; closing twice is harmless. */
    public final class Slice
            implements AutoCloseable
    {
        private final Mapping mapping;
        private final ByteBuffer buffer;
        private boolean closed;

        private Slice(Mapping mapping, ByteBuffer buffer)
        {
            this.mapping = mapping;
            this.buffer = buffer;
        }

        /** The range's bytes (position 0, limit = length); not to be used after {@link #close}. */
        public ByteBuffer buffer()
        {
            return buffer;
        }

        @Override
        public void close()
        {
            synchronized (SharedMappings.this) {
                if (closed) {
                    return;
                }
                closed = true;
            }
            release(mapping);
        }
    }
}
