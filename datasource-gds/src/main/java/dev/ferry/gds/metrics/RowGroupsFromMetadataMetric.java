package dev.ferry.gds.metrics;

/** See {@link GdsMetric#ROW_GROUPS_FROM_METADATA}. */
public final class RowGroupsFromMetadataMetric
        extends GdsSumMetric
{
    public RowGroupsFromMetadataMetric()
    {
        super(GdsMetric.ROW_GROUPS_FROM_METADATA);
    }
}
