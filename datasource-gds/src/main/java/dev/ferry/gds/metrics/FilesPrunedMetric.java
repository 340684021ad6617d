package dev.ferry.gds.metrics;

/** See {@link GdsMetric#FILES_PRUNED}. */
public final class FilesPrunedMetric
        extends GdsSumMetric
{
    public FilesPrunedMetric()
    {
        super(GdsMetric.FILES_PRUNED);
    }
}
