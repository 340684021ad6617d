package dev.ferry.gds.metrics;

/** See {@link GdsMetric#PCIE_GDS_STORAGE_TO_DEVICE}. */
public final class PcieGdsStorageToDeviceMetric
        extends GdsSumMetric
{
    public PcieGdsStorageToDeviceMetric()
    {
        super(GdsMetric.PCIE_GDS_STORAGE_TO_DEVICE);
    }
}
