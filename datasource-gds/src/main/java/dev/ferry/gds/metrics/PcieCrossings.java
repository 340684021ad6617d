package dev.ferry.gds.metrics;

import dev.ferry.gds.io.IoRoute;
import dev.ferry.gds.io.ReadCounters;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

import java.util.List;

/** The bytes a task's reads moved across PCIe, per device route and direction; HOST reads move none. Used by one thread. */
final class PcieCrossings
{
    private long bounceHostToDevice;
    private long bounceDeviceToHost;
    private long gdsStorageToDevice;
    private long gdsHostToDevice;
    private long gdsDeviceToHost;

    void add(IoRoute route, ReadCounters counters)
    {
        switch (route) {
            case HOST:
                // Host reads land in host memory: only DeviceParquetDataSource records crossings
                break;
            case BOUNCE:
                bounceHostToDevice += counters.hostToDeviceBytes() + counters.storageToDeviceBytes();
                bounceDeviceToHost += counters.deviceToHostBytes();
                break;
            case GDS:
                gdsStorageToDevice += counters.storageToDeviceBytes();
                gdsHostToDevice += counters.hostToDeviceBytes();
                gdsDeviceToHost += counters.deviceToHostBytes();
                break;
        }
    }

    PcieCrossings copy()
    {
        PcieCrossings copy = new PcieCrossings();
        copy.bounceHostToDevice = bounceHostToDevice;
        copy.bounceDeviceToHost = bounceDeviceToHost;
        copy.gdsStorageToDevice = gdsStorageToDevice;
        copy.gdsHostToDevice = gdsHostToDevice;
        copy.gdsDeviceToHost = gdsDeviceToHost;
        return copy;
    }

    void report(List<CustomTaskMetric> metrics)
    {
        metrics.add(GdsMetric.PCIE_BOUNCE_HOST_TO_DEVICE.value(bounceHostToDevice));
        metrics.add(GdsMetric.PCIE_BOUNCE_DEVICE_TO_HOST.value(bounceDeviceToHost));
        metrics.add(GdsMetric.PCIE_GDS_STORAGE_TO_DEVICE.value(gdsStorageToDevice));
        metrics.add(GdsMetric.PCIE_GDS_HOST_TO_DEVICE.value(gdsHostToDevice));
        metrics.add(GdsMetric.PCIE_GDS_DEVICE_TO_HOST.value(gdsDeviceToHost));
    }
}
