package dev.ferry.gds.metrics;

/** See {@link GdsMetric#READ_MS}. */
public final class ReadTimeMetric
        extends GdsSumMetric
{
    public ReadTimeMetric()
    {
        super(GdsMetric.READ_MS);
    }
}
