package dev.ferry.gds.metrics;

/** See {@link GdsMetric#ROUTE_FALLBACKS}. */
public final class RouteFallbacksMetric
        extends GdsSumMetric
{
    public RouteFallbacksMetric()
    {
        super(GdsMetric.ROUTE_FALLBACKS);
    }
}
