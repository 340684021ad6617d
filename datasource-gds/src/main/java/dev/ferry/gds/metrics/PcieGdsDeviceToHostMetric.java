package dev.ferry.gds.metrics;

/** See {@link GdsMetric#PCIE_GDS_DEVICE_TO_HOST}. */
public final class PcieGdsDeviceToHostMetric
        extends GdsSumMetric
{
    public PcieGdsDeviceToHostMetric()
    {
        super(GdsMetric.PCIE_GDS_DEVICE_TO_HOST);
    }
}
