package dev.ferry.gds.metrics;

/** See {@link GdsMetric#ROW_GROUPS_SKIPPED}. */
public final class RowGroupsSkippedMetric
        extends GdsSumMetric
{
    public RowGroupsSkippedMetric()
    {
        super(GdsMetric.ROW_GROUPS_SKIPPED);
    }
}
