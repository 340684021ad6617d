package dev.ferry.device.pool;

/** A snapshot of a {@link TieredShuffleStore}: bytes per tier, spill counts and time. */
public final class TierMetrics
{
    private final int blocks;
    private final long deviceBytes;
    private final long hostBytes;
    private final long diskBytes;
    private final long spillsToHost;
    private final long spillsToDisk;
    private final long spillNanos;

    public TierMetrics(int blocks, long deviceBytes, long hostBytes, long diskBytes, long spillsToHost, long spillsToDisk, long spillNanos)
    {
        this.blocks = blocks;
        this.deviceBytes = deviceBytes;
        this.hostBytes = hostBytes;
        this.diskBytes = diskBytes;
        this.spillsToHost = spillsToHost;
        this.spillsToDisk = spillsToDisk;
        this.spillNanos = spillNanos;
    }

    public int blocks()
    {
        return blocks;
    }

    public long deviceBytes()
    {
        return deviceBytes;
    }

    public long hostBytes()
    {
        return hostBytes;
    }

    public long diskBytes()
    {
        return diskBytes;
    }

    /** Blocks moved from device to host memory. */
    public long spillsToHost()
    {
        return spillsToHost;
    }

    /** Blocks written to disk (from host or straight from device). */
    public long spillsToDisk()
    {
        return spillsToDisk;
    }

    public long spillNanos()
    {
        return spillNanos;
    }

    @Override
    public String toString()
    {
        return blocks + " blocks: device " + deviceBytes + " B, host " + hostBytes + " B, disk " + diskBytes + " B; spills to host " + spillsToHost
                + ", to disk " + spillsToDisk + ", " + (spillNanos / 1_000_000) + " ms spilling";
    }
}
