package dev.ferry.gds.metrics;

/** See {@link GdsMetric#HOST_BYTES}. */
public final class HostBytesMetric
        extends GdsSumMetric
{
    public HostBytesMetric()
    {
        super(GdsMetric.HOST_BYTES);
    }
}
