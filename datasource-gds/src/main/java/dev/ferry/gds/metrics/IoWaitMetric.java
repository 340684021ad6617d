package dev.ferry.gds.metrics;

/** See {@link GdsMetric#IO_WAIT_MS}. */
public final class IoWaitMetric
        extends GdsSumMetric
{
    public IoWaitMetric()
    {
        super(GdsMetric.IO_WAIT_MS);
    }
}
