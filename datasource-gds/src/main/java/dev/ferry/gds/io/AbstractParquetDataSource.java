package dev.ferry.gds.io;

import dev.ferry.gds.parquet.CorruptParquetException;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

import static java.util.Objects.requireNonNull;

/**
 * Planning, bounds checks, timing and counting for every route; an implementation only moves bytes
 * in {@link #readInternal}. Reads run on {@code parallelReads} when given and there is more than one
 * request, else on the caller's thread.
 */
public abstract class AbstractParquetDataSource
        implements ParquetDataSource
{
    private final String id;
    private final long size;
    private final ReadPlanning planning;
    private final Optional<ExecutorService> parallelReads;
    private final ReadCounters counters = new ReadCounters();

    protected AbstractParquetDataSource(String id, long size, ReadPlanning planning, Optional<ExecutorService> parallelReads)
    {
        this.id = requireNonNull(id, "id is null");
        if (size < 0) {
            throw new IllegalArgumentException("size is negative: " + size);
        }
        this.size = size;
        this.planning = requireNonNull(planning, "planning is null");
        this.parallelReads = requireNonNull(parallelReads, "parallelReads is null");
    }

    /** Fills {@code target} (all its remaining bytes) from the file starting at {@code position}; the range is within the file. */
    protected abstract void readInternal(long position, ByteBuffer target)
            throws IOException;

    /**
     * Fills {@code target} from {@code channel} starting at {@code position}: positional reads may
     * return fewer bytes than asked, and a file that ends early is an error naming it and the offset.
     */
    protected final void readFully(FileChannel channel, long position, ByteBuffer target)
            throws IOException
    {
        long next = position;
        while (target.hasRemaining()) {
            int read = channel.read(target, next);
            if (read < 0) {
                throw new EOFException("Unexpected end of " + id + " at offset " + next);
            }
            next += read;
        }
    }

    @Override
    public final String id()
    {
        return id;
    }

    @Override
    public final long size()
    {
        return size;
    }

    @Override
    public final ReadCounters counters()
    {
        return counters;
    }

    @Override
    public final ByteBuffer readTail(int length)
            throws IOException
    {
        int tail = (int) Math.min(length, size);
        return readFully(size - tail, tail);
    }

    @Override
    public final ByteBuffer readFully(long position, int length)
            throws IOException
    {
        DiskRange range = new DiskRange(position, length);
        checkWithinFile(range);
        long start = System.nanoTime();
        ByteBuffer buffer = ByteBuffer.allocate(length);
        readInternal(position, buffer);
        counters.recordRequest(length);
        counters.recordWait(System.nanoTime() - start);
        buffer.flip();
        return buffer.asReadOnlyBuffer();
    }

    @Override
    public final ByteBuffer readUnplanned(long position, int length)
            throws IOException
    {
        counters.recordUnplannedRead();
        return readFully(position, length);
    }

    @Override
    public final List<DiskRange> plan(List<DiskRange> ranges)
    {
        List<DiskRange> sorted = new ArrayList<>(ranges);
        sorted.sort(Comparator.comparingLong(DiskRange::position).thenComparingInt(DiskRange::length));
        List<DiskRange> merged = new ArrayList<>();
        DiskRange current = null;
        for (DiskRange range : sorted) {
            if (current != null && range.position() - current.end() <= planning.coalesceGap()
                    && Math.max(current.end(), range.end()) - current.position() <= planning.maxCoalescedRead()) {
                current = current.span(range);
                continue;
            }
            if (current != null) {
                merged.add(current);
            }
            current = range;
        }
        if (current != null) {
            merged.add(current);
        }
        return merged;
    }

    @Override
    public final <K> Map<K, ByteBuffer> planRead(Map<K, DiskRange> ranges)
            throws IOException
    {
        for (DiskRange range : ranges.values()) {
            checkWithinFile(range);
        }
        List<DiskRange> requests = plan(List.copyOf(ranges.values()));
        long start = System.nanoTime();
        Map<DiskRange, ByteBuffer> buffers = readRequests(requests);
        counters.recordWait(System.nanoTime() - start);
        for (DiskRange request : requests) {
            counters.recordRequest(request.length());
        }

        Map<K, ByteBuffer> result = new HashMap<>();
        for (Map.Entry<K, DiskRange> entry : ranges.entrySet()) {
            DiskRange wanted = entry.getValue();
            DiskRange request = requests.stream().filter(candidate -> candidate.contains(wanted)).findFirst()
                    .orElseThrow(() -> new IllegalStateException("No request covers " + wanted + " in " + id));
            ByteBuffer view = buffers.get(request).duplicate();
            int offset = (int) (wanted.position() - request.position());
            view.position(offset).limit(offset + wanted.length());
            // Writable views (callers must not write): codecs decompress straight from their arrays.
            result.put(entry.getKey(), view.slice());
        }
        return result;
    }

    /**
     * Reads the planned (coalesced) {@code requests}, each into one host buffer of exactly its
     * length, keyed by request. The default splits requests into {@code readSlice} slices read by
     * {@link #readInternal}, in parallel when a pool was given; device routes override it to read
     * into device memory first.
     */
    protected Map<DiskRange, ByteBuffer> readRequests(List<DiskRange> requests)
            throws IOException
    {
        Map<DiskRange, ByteBuffer> buffers = new LinkedHashMap<>();
        List<Slice> slices = new ArrayList<>();
        for (DiskRange request : requests) {
            ByteBuffer buffer = ByteBuffer.allocate(request.length());
            buffers.put(request, buffer);
            for (long offset = 0; offset < request.length(); offset += planning.readSlice()) {
                int sliceLength = (int) Math.min(planning.readSlice(), request.length() - offset);
                ByteBuffer target = buffer.duplicate();
                target.position((int) offset).limit((int) offset + sliceLength);
                slices.add(new Slice(request.position() + offset, target.slice()));
            }
        }
        readSlices(slices);
        return buffers;
    }

    protected final ReadPlanning planning()
    {
        return planning;
    }

    protected final Optional<ExecutorService> parallelReads()
    {
        return parallelReads;
    }

    /** Runs {@code tasks} on the parallel-read pool when there is one and more than one task, else in turn on this thread. */
    protected final void runAll(List<IoTask> tasks)
            throws IOException
    {
        if (tasks.size() <= 1 || parallelReads.isEmpty()) {
            for (IoTask task : tasks) {
                task.run();
            }
            return;
        }
        List<Future<?>> futures = new ArrayList<>();
        for (IoTask task : tasks) {
            futures.add(parallelReads.get().submit(() -> {
                task.run();
                return null;
            }));
        }
        awaitAll(futures);
    }

    /** One unit of I/O work that may throw. */
    @FunctionalInterface
    protected interface IoTask
    {
        void run()
                throws IOException;
    }

    private void readSlices(List<Slice> slices)
            throws IOException
    {
        List<IoTask> tasks = new ArrayList<>();
        for (Slice slice : slices) {
            tasks.add(() -> readInternal(slice.position(), slice.target()));
        }
        runAll(tasks);
    }

    /** Waits for every future; the first failure cancels the rest and is rethrown as it was. */
    protected final void awaitAll(List<? extends Future<?>> futures)
            throws IOException
    {
        try {
            for (Future<?> future : futures) {
                future.get();
            }
        }
        catch (InterruptedException e) {
            futures.forEach(future -> future.cancel(true));
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("Interrupted while reading " + id);
        }
        catch (ExecutionException e) {
            futures.forEach(future -> future.cancel(true));
            Throwable cause = e.getCause();
            if (cause instanceof IOException) {
                throw (IOException) cause;
            }
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            if (cause instanceof Error) {
                throw (Error) cause;
            }
            throw new IOException("Reading " + id + " failed", cause);
        }
    }

    protected final void checkWithinFile(DiskRange range)
    {
        if (range.end() > size) {
            throw new CorruptParquetException(id, "range " + range.position() + "+" + range.length() + " reaches beyond the end of the file (" + size + " bytes)");
        }
    }

    private record Slice(long position, ByteBuffer target) {}
}
