package dev.ferry.gds.metrics;

/** See {@link GdsMetric#BOUNCE_BYTES}. */
public final class BounceBytesMetric
        extends GdsSumMetric
{
    public BounceBytesMetric()
    {
        super(GdsMetric.BOUNCE_BYTES);
    }
}
