package dev.ferry.gds.metrics;

/** See {@link GdsMetric#PCIE_BOUNCE_DEVICE_TO_HOST}. */
public final class PcieBounceDeviceToHostMetric
        extends GdsSumMetric
{
    public PcieBounceDeviceToHostMetric()
    {
        super(GdsMetric.PCIE_BOUNCE_DEVICE_TO_HOST);
    }
}
