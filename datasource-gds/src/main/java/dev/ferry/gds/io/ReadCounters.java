package dev.ferry.gds.io;

import dev.ferry.device.cufile.ReadPath;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What one data source read: bytes, requests, time spent waiting on I/O, and the bytes that crossed
 * PCIe in each direction. The crossings are counted where the reader moves bytes, not in a device
 * backend, so the simulated backend counts exactly what real hardware would carry: a BOUNCE read is
 * host to device and back, a GDS read storage to device (or host to device where cuFile or O_DIRECT
 * was refused) and back, a HOST read none. Thread-safe.
 */
public final class ReadCounters
{
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong waitNanos = new AtomicLong();
    private final AtomicLong unplannedReads = new AtomicLong();
    private final AtomicLong trueDirectBytes = new AtomicLong();
    private final AtomicLong compatModeBytes = new AtomicLong();
    private final AtomicLong posixBytes = new AtomicLong();
    private final AtomicLong hostToDeviceBytes = new AtomicLong();
    private final AtomicLong storageToDeviceBytes = new AtomicLong();
    private final AtomicLong deviceToHostBytes = new AtomicLong();
    private final AtomicLong plannedDeviceToHostBytes = new AtomicLong();
    private final AtomicLong residentChunks = new AtomicLong();

    void recordRequest(long byteCount)
    {
        bytes.addAndGet(byteCount);
        requests.incrementAndGet();
    }

    void recordWait(long nanos)
    {
        waitNanos.addAndGet(nanos);
    }

    void recordUnplannedRead()
    {
        unplannedReads.incrementAndGet();
    }

    /**
     * Bytes a device route moved into device memory, by the path the read really took (aligned supersets included):
     * a true direct read crosses PCIe from the drive to the GPU, compatibility mode and POSIX reads from host memory.
     */
    void recordOutcome(ReadPath path, long byteCount)
    {
        switch (path) {
            case TRUE_DIRECT:
                trueDirectBytes.addAndGet(byteCount);
                storageToDeviceBytes.addAndGet(byteCount);
                break;
            case COMPAT_MODE:
                compatModeBytes.addAndGet(byteCount);
                hostToDeviceBytes.addAndGet(byteCount);
                break;
            case POSIX:
                posixBytes.addAndGet(byteCount);
                hostToDeviceBytes.addAndGet(byteCount);
                break;
        }
    }

    /** Bytes copied from device memory back to host memory (for the host decode). */
    void recordDeviceToHost(long byteCount)
    {
        deviceToHostBytes.addAndGet(byteCount);
    }

    /** Bytes of planned reads (column chunks, page indexes: row data) copied back to host memory; also in {@link #deviceToHostBytes}. */
    void recordPlannedDeviceToHost(long byteCount)
    {
        deviceToHostBytes.addAndGet(byteCount);
        plannedDeviceToHostBytes.addAndGet(byteCount);
    }

    /** Column chunks read into device memory and left there for a device decoder (no copy back). */
    void recordResidentChunk()
    {
        residentChunks.incrementAndGet();
    }

    /** Bytes that crossed PCIe from host memory into device memory. */
    public long hostToDeviceBytes()
    {
        return hostToDeviceBytes.get();
    }

    /** Bytes that crossed PCIe from the drive straight into device memory (DMA, no host buffer). */
    public long storageToDeviceBytes()
    {
        return storageToDeviceBytes.get();
    }

    /** Bytes that crossed PCIe from device memory into host memory. */
    public long deviceToHostBytes()
    {
        return deviceToHostBytes.get();
    }

    /**
     * Of {@link #deviceToHostBytes}, the bytes of planned reads (column chunks, page indexes): row
     * data that crossed back to the host; the rest is the footer and unplanned reads.
     */
    public long plannedDeviceToHostBytes()
    {
        return plannedDeviceToHostBytes.get();
    }

    /** Column chunks read into device memory and decoded there, never copied back ({@link DeviceParquetDataSource#readResident}). */
    public long residentChunks()
    {
        return residentChunks.get();
    }

    /** Bytes read into device memory by DMA from storage (cuFile with GDS; O_DIRECT into the simulated arena). */
    public long trueDirectBytes()
    {
        return trueDirectBytes.get();
    }

    /** Bytes cuFile served in compatibility mode (POSIX read plus a bounce copy inside cuFile). */
    public long compatModeBytes()
    {
        return compatModeBytes.get();
    }

    /** Bytes read through the page cache and copied to the device (BOUNCE, and GDS where cuFile/O_DIRECT was refused). */
    public long posixBytes()
    {
        return posixBytes.get();
    }

    /** Bytes read from the file, gaps read by coalescing included. */
    public long bytes()
    {
        return bytes.get();
    }

    /** Read requests issued to the file. */
    public long requests()
    {
        return requests.get();
    }

    /** Time callers waited for reads to finish (parallel reads overlap, so this is wall time, not the sum). */
    public long waitNanos()
    {
        return waitNanos.get();
    }

    /** Reads the decoder asked for outside a planned range (each is a separate small request). */
    public long unplannedReads()
    {
        return unplannedReads.get();
    }
}
