package dev.ferry.gds.io;

import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.cufile.ReadPath;
import dev.ferry.device.memory.BufferAllocator;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;

import static java.util.Objects.requireNonNull;

/**
 * A route whose reads land in device memory ({@link IoRoute#GDS}, {@link IoRoute#BOUNCE}):
 * {@link #readToDevice} moves the planned requests onto device {@code device}, and each read's real
 * outcome (true direct, cuFile compatibility mode, POSIX) is counted with its bytes.
 *
 * <p>Two ways on from device memory. A column chunk the device decoder takes where it lies
 * ({@link #readResident}: a flat chunk of device batches for a decoder on this device) stays there:
 * its page headers are walked on the device and its bodies decoded by the kernels, so no byte of it
 * comes back ({@link ReadCounters#residentChunks()}). Every other read goes through parquet-mr's
 * page reader, which parses page headers from host bytes, so {@link #readRequests} copies each
 * device-resident request back to a host buffer and frees the device memory; that crossing is
 * counted ({@link ReadCounters#plannedDeviceToHostBytes()}) with the one into the device.
 */
public abstract class DeviceParquetDataSource
        extends AbstractParquetDataSource
{
    private final DeviceRuntime runtime;
    private final int device;
    private final BufferAllocator allocator;

    protected DeviceParquetDataSource(String id, long size, ReadPlanning planning, Optional<ExecutorService> parallelReads, DeviceRuntime runtime, int device)
    {
        super(id, size, planning, parallelReads);
        this.runtime = requireNonNull(runtime, "runtime is null");
        this.device = device;
        this.allocator = runtime.deviceAllocator(device).newChildAllocator("ferry-gds-" + route().name().toLowerCase(Locale.ROOT) + " " + id, Long.MAX_VALUE);
    }

    /**
     * Reads {@code requests} into device memory, one {@link DeviceRange} per request in the same
     * order; the caller owns (closes) the buffers. On failure nothing stays allocated.
     */
    public abstract List<DeviceRange> readToDevice(List<DiskRange> requests)
            throws IOException;

    /**
     * Reads each of {@code chunks} (column chunks of the file, one request each) into device memory
     * and leaves it there for a decoder on this device: nothing is copied back unless the decoder
     * gives a chunk back ({@link ResidentChunk#copyToHost}, counted). Counted as planned reads. The
     * caller closes every chunk; on failure nothing stays allocated.
     */
    public final List<ResidentChunk> readResident(List<DiskRange> chunks)
            throws IOException
    {
        for (DiskRange chunk : chunks) {
            checkWithinFile(chunk);
        }
        long start = System.nanoTime();
        List<DeviceRange> read = readToDevice(chunks);
        counters().recordWait(System.nanoTime() - start);
        List<ResidentChunk> resident = new ArrayList<>(read.size());
        for (DeviceRange range : read) {
            counters().recordRequest(range.range().length());
            counters().recordResidentChunk();
            resident.add(new ResidentChunk(this, range));
        }
        return resident;
    }

    /** Whether this route's device memory is {@code runtime}'s device {@code ordinal}: the memory a decoder there can read in place. */
    public final boolean readsInto(DeviceRuntime other, int ordinal)
    {
        return runtime == other && device == ordinal;
    }

    // A resident chunk given back to the host decoder: the one copy down, counted as row data.
    final ByteBuffer copyToHost(DeviceRange range)
    {
        ByteBuffer host = ByteBuffer.allocate(range.range().length());
        try (DeviceStream stream = runtime.newStream(device)) {
            stream.copyToHost(range.buffer(), range.offset(), host);
            stream.synchronize();
        }
        host.flip();
        counters().recordPlannedDeviceToHost(range.range().length());
        return host;
    }

    /** The path this route's reads of this file take (the cuFile/O_DIRECT verdict on GDS, POSIX on BOUNCE). */
    public abstract ReadPath readPath();

    /** Why this file's reads take {@link #readPath()}. */
    public abstract String readPathReason();

    public final int device()
    {
        return device;
    }

    protected final DeviceRuntime runtime()
    {
        return runtime;
    }

    protected final BufferAllocator allocator()
    {
        return allocator;
    }

    protected final void recordOutcome(ReadPath path, long bytes)
    {
        counters().recordOutcome(path, bytes);
    }

    @Override
    protected final Map<DiskRange, ByteBuffer> readRequests(List<DiskRange> requests)
            throws IOException
    {
        List<DeviceRange> resident = readToDevice(requests);
        try {
            // Host decode for now: device -> host, one copy per request. A device decoder takes `resident` instead.
            Map<DiskRange, ByteBuffer> buffers = new LinkedHashMap<>();
            try (DeviceStream stream = runtime.newStream(device)) {
                for (DeviceRange range : resident) {
                    ByteBuffer host = ByteBuffer.allocate(range.range().length());
                    stream.copyToHost(range.buffer(), range.offset(), host);
                    host.flip();
                    buffers.put(range.range(), host);
                }
                stream.synchronize();
            }
            resident.forEach(range -> counters().recordPlannedDeviceToHost(range.range().length()));
            return buffers;
        }
        finally {
            closeAll(resident);
        }
    }

    @Override
    protected final void readInternal(long position, ByteBuffer target)
            throws IOException
    {
        DiskRange range = new DiskRange(position, target.remaining());
        List<DeviceRange> resident = readToDevice(List.of(range));
        try (DeviceStream stream = runtime.newStream(device)) {
            stream.copyToHost(resident.get(0).buffer(), resident.get(0).offset(), target);
            stream.synchronize();
            counters().recordDeviceToHost(range.length());
        }
        finally {
            closeAll(resident);
        }
    }

    protected static void closeAll(List<DeviceRange> ranges)
    {
        RuntimeException failure = null;
        for (DeviceRange range : ranges) {
            try {
                range.buffer().close();
            }
            catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Closes the route's own resources; the device allocator is closed (and checked for leaks) afterwards. */
    protected abstract void closeRoute()
            throws IOException;

    @Override
    public final void close()
            throws IOException
    {
        try {
            closeRoute();
        }
        finally {
            allocator.close();
        }
    }
}
