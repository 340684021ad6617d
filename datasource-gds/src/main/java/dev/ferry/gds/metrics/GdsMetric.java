package dev.ferry.gds.metrics;

import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * The custom metrics of a gds scan. Metric names are what tests and tools read; descriptions are the
 * short names the Spark UI shows (what each one counts is in docs/deploying.md, "The gds scan's metrics").
 */
public enum GdsMetric
{
    HOST_BYTES("hostBytes", "HOST bytes", HostBytesMetric::new),
    BOUNCE_BYTES("bounceBytes", "BOUNCE bytes", BounceBytesMetric::new),
    GDS_BYTES("gdsBytes", "GDS bytes", GdsBytesMetric::new),
    TRUE_DIRECT_BYTES("trueDirectBytes", "direct I/O bytes", TrueDirectBytesMetric::new),
    COMPAT_MODE_BYTES("compatModeBytes", "cuFile compat bytes", CompatModeBytesMetric::new),
    POSIX_BYTES("posixBytes", "POSIX fallback bytes", PosixBytesMetric::new),
    // PCIe crossings per device route; the HOST route makes none, so their sum is 0 for a query read on HOST
    PCIE_BOUNCE_HOST_TO_DEVICE("pcieBounceHostToDeviceBytes", "PCIe H2D (BOUNCE)", PcieBounceHostToDeviceMetric::new),
    PCIE_BOUNCE_DEVICE_TO_HOST("pcieBounceDeviceToHostBytes", "PCIe D2H (BOUNCE)", PcieBounceDeviceToHostMetric::new),
    PCIE_GDS_STORAGE_TO_DEVICE("pcieGdsStorageToDeviceBytes", "PCIe NVMe to GPU (GDS)", PcieGdsStorageToDeviceMetric::new),
    PCIE_GDS_HOST_TO_DEVICE("pcieGdsHostToDeviceBytes", "PCIe H2D (GDS)", PcieGdsHostToDeviceMetric::new),
    PCIE_GDS_DEVICE_TO_HOST("pcieGdsDeviceToHostBytes", "PCIe D2H (GDS)", PcieGdsDeviceToHostMetric::new),
    READ_REQUESTS("readRequests", "read requests", ReadRequestsMetric::new),
    UNPLANNED_READS("unplannedReads", "unplanned reads", UnplannedReadsMetric::new),
    IO_WAIT_MS("ioWaitMs", "I/O wait (ms)", IoWaitMetric::new),
    READ_MS("readMs", "read time (ms)", ReadTimeMetric::new),
    DECODE_MS("decodeMs", "decode time (ms)", DecodeTimeMetric::new),
    ROW_GROUPS_READ("rowGroupsRead", "row groups read", RowGroupsReadMetric::new),
    ROW_GROUPS_SKIPPED("rowGroupsSkipped", "row groups skipped", RowGroupsSkippedMetric::new),
    PAGES_SKIPPED("pagesSkipped", "pages skipped", PagesSkippedMetric::new),
    PAGE_INDEX_FALLBACKS("pageIndexFallbacks", "page index fallbacks", PageIndexFallbacksMetric::new),
    ROWS_FILTERED("rowsFiltered", "rows filtered in scan", RowsFilteredMetric::new),
    FILES_PRUNED("filesPruned", "files pruned", FilesPrunedMetric::new),
    FILES_SKIPPED("filesSkipped", "files skipped", FilesSkippedMetric::new),
    ROUTE_FALLBACKS("routeFallbacks", "route fallbacks", RouteFallbacksMetric::new),
    ROW_GROUPS_FROM_METADATA("rowGroupsFromMetadata", "row groups from metadata", RowGroupsFromMetadataMetric::new);

    private final String metricName;
    private final String description;
    private final Supplier<CustomMetric> factory;

    GdsMetric(String metricName, String description, Supplier<CustomMetric> factory)
    {
        this.metricName = requireNonNull(metricName, "metricName is null");
        this.description = requireNonNull(description, "description is null");
        this.factory = requireNonNull(factory, "factory is null");
    }

    public String metricName()
    {
        return metricName;
    }

    public String description()
    {
        return description;
    }

    public CustomMetric newMetric()
    {
        return factory.get();
    }

    public CustomTaskMetric value(long value)
    {
        return new GdsTaskMetric(metricName, value);
    }

    public static CustomMetric[] all()
    {
        GdsMetric[] metrics = values();
        CustomMetric[] result = new CustomMetric[metrics.length];
        for (int index = 0; index < metrics.length; index++) {
            result[index] = metrics[index].newMetric();
        }
        return result;
    }
}
