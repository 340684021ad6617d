package dev.ferry.gds.metrics;

/** See {@link GdsMetric#PCIE_GDS_HOST_TO_DEVICE}. */
public final class PcieGdsHostToDeviceMetric
        extends GdsSumMetric
{
    public PcieGdsHostToDeviceMetric()
    {
        super(GdsMetric.PCIE_GDS_HOST_TO_DEVICE);
    }
}
