package dev.ferry.gds.metrics;

/** See {@link GdsMetric#FILES_SKIPPED}. */
public final class FilesSkippedMetric
        extends GdsSumMetric
{
    public FilesSkippedMetric()
    {
        super(GdsMetric.FILES_SKIPPED);
    }
}
