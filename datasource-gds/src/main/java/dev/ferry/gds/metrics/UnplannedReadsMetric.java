package dev.ferry.gds.metrics;

/** See {@link GdsMetric#UNPLANNED_READS}. */
public final class UnplannedReadsMetric
        extends GdsSumMetric
{
    public UnplannedReadsMetric()
    {
        super(GdsMetric.UNPLANNED_READS);
    }
}
