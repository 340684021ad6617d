package dev.ferry.gds.metrics;

/** See {@link GdsMetric#GDS_BYTES}. */
public final class GdsBytesMetric
        extends GdsSumMetric
{
    public GdsBytesMetric()
    {
        super(GdsMetric.GDS_BYTES);
    }
}
