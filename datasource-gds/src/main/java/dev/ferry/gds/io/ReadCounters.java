package dev.ferry.gds.io;

import java.util.concurrent.atomic.AtomicLong;

/** What one data source read: bytes, requests and time spent waiting on I/O. Thread-safe. */
public final class ReadCounters
{
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong waitNanos = new AtomicLong();
    private final AtomicLong unplannedReads = new AtomicLong();

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
