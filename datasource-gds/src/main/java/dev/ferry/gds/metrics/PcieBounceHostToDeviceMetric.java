package dev.ferry.gds.metrics;

/** See {@link GdsMetric#PCIE_BOUNCE_HOST_TO_DEVICE}. */
public final class PcieBounceHostToDeviceMetric
        extends GdsSumMetric
{
    public PcieBounceHostToDeviceMetric()
    {
        super(GdsMetric.PCIE_BOUNCE_HOST_TO_DEVICE);
    }
}
