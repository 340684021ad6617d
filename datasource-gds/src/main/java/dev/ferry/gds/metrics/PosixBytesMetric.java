package dev.ferry.gds.metrics;

/** See {@link GdsMetric#POSIX_BYTES}. */
public final class PosixBytesMetric
        extends GdsSumMetric
{
    public PosixBytesMetric()
    {
        super(GdsMetric.POSIX_BYTES);
    }
}
