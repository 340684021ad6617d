package dev.ferry.gds.io;

import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.cufile.ReadPath;
import dev.ferry.device.memory.BufferAllocator;

import java.io.IOException;
import java.nio.ByteBuffer;
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
 * <p>The reader's pages still come through parquet-mr's page reader, which parses page headers
 * from host bytes, so {@link #readRequests} copies each device-resident request back to a host
 * buffer and frees the device memory; that device-to-host crossing is counted
 * ({@link ReadCounters#deviceToHostBytes()}) with the one into the device. The device decoder then
 * uploads the chunk's page bodies again, compressed as stored ({@code CudaColumnChunkDecoder}):
 * parsing the headers on the device, or from the offset index, and decoding from the
 * {@link DeviceRange}s {@link #readToDevice} leaves would skip both copies; not done yet.
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
            resident.forEach(range -> counters().recordDeviceToHost(range.range().length()));
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
