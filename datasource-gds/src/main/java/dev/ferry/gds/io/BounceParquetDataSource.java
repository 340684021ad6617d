package dev.ferry.gds.io;

import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.cufile.ReadPath;
import dev.ferry.device.memory.DeviceBuffer;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static java.util.Objects.requireNonNull;

/**
 * The BOUNCE route, for a GPU destination where cuFile cannot read directly: positional reads
 * through the page cache into two reusable off-heap staging buffers, each copied host -> device on a
 * copy thread while the next slice is read into the other one, so disk and copy overlap. Every byte
 * counts as a POSIX outcome.
 *
 * <p>The staging buffers are direct (off-heap) ByteBuffers, since the device runtime offers no host
 * view of its pinned allocations; on {@code cuda} the copy from them is a pageable-host copy.
 */
public final class BounceParquetDataSource
        extends DeviceParquetDataSource
{
    private static final int STAGING_BUFFERS = 2;

    private final FileChannel channel;
    private final ByteBuffer[] staging = new ByteBuffer[STAGING_BUFFERS];
    private final ExecutorService copier;

    private BounceParquetDataSource(String id, FileChannel channel, long size, ReadPlanning planning, Optional<ExecutorService> parallelReads,
            DeviceRuntime runtime, int device)
    {
        super(id, size, planning, parallelReads, runtime, device);
        this.channel = requireNonNull(channel, "channel is null");
        int stagingBytes = (int) Math.min(planning.readSlice(), Math.max(1, size));
        for (int index = 0; index < STAGING_BUFFERS; index++) {
            staging[index] = ByteBuffer.allocateDirect(stagingBytes);
        }
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
        return "BOUNCE: page-cache reads into host staging buffers, then host -> device copies";
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
                        ByteBuffer stage = staging[index];
                        stage.clear();
                        stage.limit((int) Math.min(stage.capacity(), request.length() - offset));
                        fill(request.position() + offset, stage);
                        stage.flip();
                        long targetOffset = offset;
                        pending[index] = copier.submit(() -> stream.copyFromHost(stage, buffer, targetOffset));
                        offset += stage.limit();
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
                for (Future<?> future : pending) {
                    if (future != null) {
                        future.cancel(false);
                    }
                }
                closeAll(resident);
                throw e;
            }
        }
        recordOutcome(ReadPath.POSIX, bytes);
        return resident;
    }

    private void fill(long position, ByteBuffer target)
            throws IOException
    {
        long next = position;
        while (target.hasRemaining()) {
            int read = channel.read(target, next);
            if (read < 0) {
                throw new EOFException("Unexpected end of " + id() + " at offset " + next);
            }
            next += read;
        }
    }

    @Override
    protected void closeRoute()
            throws IOException
    {
        copier.shutdownNow();
        channel.close();
    }
}
