package dev.ferry.gds.metrics;

/** See {@link GdsMetric#DECODE_MS}. */
public final class DecodeTimeMetric
        extends GdsSumMetric
{
    public DecodeTimeMetric()
    {
        super(GdsMetric.DECODE_MS);
    }
}
