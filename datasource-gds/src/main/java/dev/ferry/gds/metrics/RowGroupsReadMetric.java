package dev.ferry.gds.metrics;

/** See {@link GdsMetric#ROW_GROUPS_READ}. */
public final class RowGroupsReadMetric
        extends GdsSumMetric
{
    public RowGroupsReadMetric()
    {
        super(GdsMetric.ROW_GROUPS_READ);
    }
}
