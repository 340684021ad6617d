package dev.ferry.gds.metrics;

/** See {@link GdsMetric#ROWS_FILTERED}. */
public final class RowsFilteredMetric
        extends GdsSumMetric
{
    public RowsFilteredMetric()
    {
        super(GdsMetric.ROWS_FILTERED);
    }
}
