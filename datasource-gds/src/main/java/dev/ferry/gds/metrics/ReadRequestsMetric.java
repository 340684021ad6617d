package dev.ferry.gds.metrics;

/** See {@link GdsMetric#READ_REQUESTS}. */
public final class ReadRequestsMetric
        extends GdsSumMetric
{
    public ReadRequestsMetric()
    {
        super(GdsMetric.READ_REQUESTS);
    }
}
