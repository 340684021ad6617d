package dev.ferry.gds.metrics;

/** See {@link GdsMetric#PAGES_SKIPPED}. */
public final class PagesSkippedMetric
        extends GdsSumMetric
{
    public PagesSkippedMetric()
    {
        super(GdsMetric.PAGES_SKIPPED);
    }
}
