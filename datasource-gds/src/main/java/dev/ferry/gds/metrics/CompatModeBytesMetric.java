package dev.ferry.gds.metrics;

/** See {@link GdsMetric#COMPAT_MODE_BYTES}. */
public final class CompatModeBytesMetric
        extends GdsSumMetric
{
    public CompatModeBytesMetric()
    {
        super(GdsMetric.COMPAT_MODE_BYTES);
    }
}
