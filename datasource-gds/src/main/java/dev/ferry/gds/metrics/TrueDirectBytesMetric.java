package dev.ferry.gds.metrics;

/** See {@link GdsMetric#TRUE_DIRECT_BYTES}. */
public final class TrueDirectBytesMetric
        extends GdsSumMetric
{
    public TrueDirectBytesMetric()
    {
        super(GdsMetric.TRUE_DIRECT_BYTES);
    }
}
