package dev.ferry.gds.metrics;

import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/** The custom metrics of a gds scan. Names are what Spark shows and what tests and tools read. */
public enum GdsMetric
{
    HOST_BYTES("hostBytes", "bytes read on the HOST route", HostBytesMetric::new),
    BOUNCE_BYTES("bounceBytes", "bytes read on the BOUNCE route", BounceBytesMetric::new),
    GDS_BYTES("gdsBytes", "bytes read on the GDS route", GdsBytesMetric::new),
    TRUE_DIRECT_BYTES("trueDirectBytes", "device-route bytes read by true direct I/O (cuFile GDS, O_DIRECT when simulated)", TrueDirectBytesMetric::new),
    COMPAT_MODE_BYTES("compatModeBytes", "device-route bytes cuFile served in compatibility mode", CompatModeBytesMetric::new),
    POSIX_BYTES("posixBytes", "device-route bytes read through the page cache and copied to the device", PosixBytesMetric::new),
    // PCIe crossings per device route; the HOST route makes none, so their sum is 0 for a query read on HOST
    PCIE_BOUNCE_HOST_TO_DEVICE("pcieBounceHostToDeviceBytes", "BOUNCE route: bytes that crossed PCIe host to device", PcieBounceHostToDeviceMetric::new),
    PCIE_BOUNCE_DEVICE_TO_HOST("pcieBounceDeviceToHostBytes", "BOUNCE route: bytes that crossed PCIe device to host (for the host decode)",
            PcieBounceDeviceToHostMetric::new),
    PCIE_GDS_STORAGE_TO_DEVICE("pcieGdsStorageToDeviceBytes", "GDS route: bytes that crossed PCIe from the drive straight into the device",
            PcieGdsStorageToDeviceMetric::new),
    PCIE_GDS_HOST_TO_DEVICE("pcieGdsHostToDeviceBytes", "GDS route: bytes that crossed PCIe host to device (cuFile compat mode, POSIX fallback)",
            PcieGdsHostToDeviceMetric::new),
    PCIE_GDS_DEVICE_TO_HOST("pcieGdsDeviceToHostBytes", "GDS route: bytes that crossed PCIe device to host (for the host decode)", PcieGdsDeviceToHostMetric::new),
    READ_REQUESTS("readRequests", "read requests after coalescing", ReadRequestsMetric::new),
    UNPLANNED_READS("unplannedReads", "reads outside planned ranges", UnplannedReadsMetric::new),
    IO_WAIT_MS("ioWaitMs", "time tasks waited for reads (ms)", IoWaitMetric::new),
    READ_MS("readMs", "time reads took, in the background when prefetching (ms)", ReadTimeMetric::new),
    DECODE_MS("decodeMs", "time decoding pages into Arrow (ms)", DecodeTimeMetric::new),
    ROW_GROUPS_READ("rowGroupsRead", "row groups read", RowGroupsReadMetric::new),
    ROW_GROUPS_SKIPPED("rowGroupsSkipped", "row groups skipped by statistics", RowGroupsSkippedMetric::new),
    PAGES_SKIPPED("pagesSkipped", "pages skipped by column-index min/max (page-index pushdown)", PagesSkippedMetric::new),
    PAGE_INDEX_FALLBACKS("pageIndexFallbacks", "row groups with pushed filters and page indexes read whole because a column cannot skip rows", PageIndexFallbacksMetric::new),
    ROWS_FILTERED("rowsFiltered", "rows the pushed filters rejected inside the scan (Spark re-applies them to the rest)", RowsFilteredMetric::new),
    FILES_PRUNED("filesPruned", "files skipped by partition filters", FilesPrunedMetric::new),
    FILES_SKIPPED("filesSkipped", "files skipped (ignoreCorruptFiles, ignoreMissingFiles)", FilesSkippedMetric::new),
    ROUTE_FALLBACKS("routeFallbacks", "files read on another route than the policy chose", RouteFallbacksMetric::new),
    ROW_GROUPS_FROM_METADATA("rowGroupsFromMetadata", "row groups a pushed COUNT(*) answered from their row counts, without reading them",
            RowGroupsFromMetadataMetric::new);

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
