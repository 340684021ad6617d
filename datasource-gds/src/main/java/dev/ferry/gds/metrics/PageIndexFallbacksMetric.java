package dev.ferry.gds.metrics;

/** See {@link GdsMetric#PAGE_INDEX_FALLBACKS}. */
public final class PageIndexFallbacksMetric
        extends GdsSumMetric
{
    public PageIndexFallbacksMetric()
    {
        super(GdsMetric.PAGE_INDEX_FALLBACKS);
    }
}
