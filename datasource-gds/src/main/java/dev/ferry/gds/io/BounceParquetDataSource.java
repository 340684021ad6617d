package dev.ferry.gds.io;

import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.cufile.ReadPath;
import dev.ferry.device.memory.DeviceBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;

import static java.util.Objects.requireNonNull;

/**
 * The BOUNCE route, for a GPU destination where cuFile cannot read directly: positional reads
 * through the page cache into a small ring of reusable pinned staging buffers ({@link StagingRing}),
 * each copied host -> device on a copy thread while the next slice is read into another one, so
 * disk and copy overlap; at most {@code STAGING_BUFFERS} slices are in flight. Every byte counts as
 * a POSIX outcome.
 *
 * <p>The slots come from {@code DeviceRuntime.allocatePinnedHost}: page-locked on {@code cuda}, so
 * each copy is a DMA from the slot. If pinned memory cannot be had, the ring uses ordinary direct
 * buffers, logged and counted with the reason ({@link #stagingReason()}).
 */
public final class BounceParquetDataSource
        extends DeviceParquetDataSource
{
    private static final int STAGING_BUFFERS = 2;

    private final FileChannel channel;
    private final StagingRing staging;
    private final ExecutorService copier;

    private BounceParquetDataSource(String id, FileChannel channel, long size, ReadPlanning planning, Optional<ExecutorService> parallelReads,
            DeviceRuntime runtime, int device)
    {
        super(id, size, planning, parallelReads, runtime, device);
        this.channel = requireNonNull(channel, "channel is null");
        int stagingBytes = (int) Math.min(planning.readSlice(), Math.max(1, size));
        this.staging = StagingRing.open(runtime, id, STAGING_BUFFERS, stagingBytes);
        this.copier = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "ferry-gds-bounce-copy");
            thread.setDaemon(true);
            return thread;
        });
    }

    public static BounceParquetDataSource open(DeviceRuntime runtime, int device, Path path, String id, ReadPlanning planning,
            Optional<ExecutorService> parallelReads)
            throws IOException
    {
        FileChannel channel = FileChannel.open(path, StandardOpenOption.READ);
        try {
            return new BounceParquetDataSource(id, channel, channel.size(), planning, parallelReads, runtime, device);
        }
        catch (RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** Whether this file's reads stage through pinned memory (false: the logged, counted fallback). */
    public boolean stagesThroughPinnedMemory()
    {
        return staging.isPinned();
    }

    /** What the staging buffers are, or why they are not pinned. */
    public String stagingReason()
    {
        return staging.reason();
    }

    /** How many BOUNCE files in this JVM staged through ordinary memory because pinned allocation failed. */
    public static long pinnedStagingFallbacks()
    {
        return StagingRing.pinnedFallbacks();
    }

    @Override
    public IoRoute route()
    {
        return IoRoute.BOUNCE;
    }

    @Override
    public ReadPath readPath()
    {
        return ReadPath.POSIX;
    }

    @Override
    public String readPathReason()
    {
        return "BOUNCE: page-cache reads into " + staging.reason() + ", then host -> device copies";
    }

    // One file's staging buffers serve one request list at a time (the prefetch thread and an unplanned read may both ask).
    @Override
    public synchronized List<DeviceRange> readToDevice(List<DiskRange> requests)
            throws IOException
    {
        List<DeviceRange> resident = new ArrayList<>(requests.size());
        Future<?>[] pending = new Future<?>[STAGING_BUFFERS];
        long bytes = 0;
        try (DeviceStream stream = runtime().newStream(device())) {
            try {
                int next = 0;
                for (DiskRange request : requests) {
                    DeviceBuffer buffer = allocator().allocate(Math.max(1, request.length()));
                    resident.add(new DeviceRange(request, buffer, 0));
                    for (long offset = 0; offset < request.length(); ) {
                        int index = next++ % STAGING_BUFFERS;
                        if (pending[index] != null) {
                            awaitAll(List.of(pending[index]));
                        }
                        ByteBuffer stage = staging.slot(index);
                        int length = (int) Math.min(stage.capacity(), request.length() - offset);
                        stage.limit(length);
                        readFully(channel, request.position() + offset, stage);
                        long targetOffset = offset;
                        // The copy thread returns the slot only once the copy is done with it (see StagingRing.copyToDevice).
                        pending[index] = copier.submit(() -> staging.copyToDevice(stream, index, length, buffer, targetOffset));
                        offset += length;
                    }
                    bytes += request.length();
                }
                List<Future<?>> last = new ArrayList<>();
                for (Future<?> future : pending) {
                    if (future != null) {
                        last.add(future);
                    }
                }
                awaitAll(last);
                stream.synchronize();
            }
            catch (IOException | RuntimeException | Error e) {
                // A copy still queued or running reads a staging slot and writes a target buffer: let it end before freeing either.
                drainCopies();
                closeAll(resident);
                throw e;
            }
        }
        recordOutcome(ReadPath.POSIX, bytes);
        return resident;
    }

    /**
     * Waits until the copy thread has finished everything submitted so far. Futures alone cannot
     * tell: one cancelled while running (as {@code awaitAll} does on failure) reports done but keeps
     * running. The copier is single-threaded, so a no-op completing means every earlier task ended.
     */
    private void drainCopies()
    {
        Future<?> barrier;
        try {
            barrier = copier.submit(() -> {});
        }
        catch (RejectedExecutionException e) {
            return; // shut down: nothing more runs
        }
        boolean interrupted = false;
        while (true) {
            try {
                barrier.get();
                break;
            }
            catch (InterruptedException e) {
                interrupted = true;
            }
            catch (ExecutionException | CancellationException e) {
                break;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    // Synchronized with readToDevice: the staging memory must not be freed under a copy in flight.
    @Override
    protected synchronized void closeRoute()
            throws IOException
    {
        copier.shutdownNow();
        try {
            staging.close();
        }
        finally {
            channel.close();
        }
    }
}
