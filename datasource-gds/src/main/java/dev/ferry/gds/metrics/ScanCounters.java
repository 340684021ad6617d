package dev.ferry.gds.metrics;

import dev.ferry.gds.io.IoRoute;
import dev.ferry.gds.io.ReadCounters;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** What one task's reader did, reported as Spark custom task metrics. Used by the task thread only. */
public final class ScanCounters
{
    private long hostBytes;
    private long bounceBytes;
    private long gdsBytes;
    private long trueDirectBytes;
    private long compatModeBytes;
    private long posixBytes;
    private final PcieCrossings pcie = new PcieCrossings();
    private long readRequests;
    private long unplannedReads;
    private long readNanos;
    private long ioWaitNanos;
    private long decodeNanos;
    private long rowGroupsRead;
    private long filesSkipped;
    private long routeFallbacks;
    private long pagesSkipped;
    private long pageIndexFallbacks;
    private long rowsFiltered;

    /** Adds a closed data source's counters. */
    public void addSource(IoRoute route, ReadCounters counters)
    {
        switch (route) {
            case HOST:
                hostBytes += counters.bytes();
                break;
            case BOUNCE:
                bounceBytes += counters.bytes();
                break;
            case GDS:
                gdsBytes += counters.bytes();
                break;
        }
        readRequests += counters.requests();
        unplannedReads += counters.unplannedReads();
        readNanos += counters.waitNanos();
        trueDirectBytes += counters.trueDirectBytes();
        compatModeBytes += counters.compatModeBytes();
        posixBytes += counters.posixBytes();
        pcie.add(route, counters);
    }

    public void addIoWaitNanos(long nanos)
    {
        ioWaitNanos += nanos;
    }

    public void addDecodeNanos(long nanos)
    {
        decodeNanos += nanos;
    }

    public void addRowGroupRead()
    {
        rowGroupsRead++;
    }

    public void addFileSkipped()
    {
        filesSkipped++;
    }

    public void addPageIndex(long skipped, long fallbacks)
    {
        pagesSkipped += skipped;
        pageIndexFallbacks += fallbacks;
    }

    public void addRowsFiltered(long rows)
    {
        rowsFiltered += rows;
    }

    public void addRouteFallback()
    {
        routeFallbacks++;
    }

    public long rowGroupsRead()
    {
        return rowGroupsRead;
    }

    public long hostBytes()
    {
        return hostBytes;
    }

    /** Task metrics, including the counters of {@code open}, the source still being read, and the decode time of the slice still open. */
    public CustomTaskMetric[] snapshot(List<ReadCountersOf> open, long openDecodeNanos, long openIoWaitNanos, long openPagesSkipped, long openPageIndexFallbacks,
            long openRowsFiltered)
    {
        long host = hostBytes;
        long bounce = bounceBytes;
        long gds = gdsBytes;
        long requests = readRequests;
        long unplanned = unplannedReads;
        long read = readNanos;
        long direct = trueDirectBytes;
        long compat = compatModeBytes;
        long posix = posixBytes;
        PcieCrossings crossings = pcie.copy();
        for (ReadCountersOf source : open) {
            crossings.add(source.route(), source.counters());
            switch (source.route()) {
                case HOST:
                    host += source.counters().bytes();
                    break;
                case BOUNCE:
                    bounce += source.counters().bytes();
                    break;
                case GDS:
                    gds += source.counters().bytes();
                    break;
            }
            requests += source.counters().requests();
            unplanned += source.counters().unplannedReads();
            read += source.counters().waitNanos();
            direct += source.counters().trueDirectBytes();
            compat += source.counters().compatModeBytes();
            posix += source.counters().posixBytes();
        }
        List<CustomTaskMetric> metrics = new ArrayList<>();
        metrics.add(GdsMetric.HOST_BYTES.value(host));
        metrics.add(GdsMetric.BOUNCE_BYTES.value(bounce));
        metrics.add(GdsMetric.GDS_BYTES.value(gds));
        metrics.add(GdsMetric.TRUE_DIRECT_BYTES.value(direct));
        metrics.add(GdsMetric.COMPAT_MODE_BYTES.value(compat));
        metrics.add(GdsMetric.POSIX_BYTES.value(posix));
        crossings.report(metrics);
        metrics.add(GdsMetric.READ_REQUESTS.value(requests));
        metrics.add(GdsMetric.UNPLANNED_READS.value(unplanned));
        metrics.add(GdsMetric.IO_WAIT_MS.value(TimeUnit.NANOSECONDS.toMillis(ioWaitNanos + openIoWaitNanos)));
        metrics.add(GdsMetric.READ_MS.value(TimeUnit.NANOSECONDS.toMillis(read)));
        metrics.add(GdsMetric.DECODE_MS.value(TimeUnit.NANOSECONDS.toMillis(decodeNanos + openDecodeNanos)));
        metrics.add(GdsMetric.ROW_GROUPS_READ.value(rowGroupsRead));
        metrics.add(GdsMetric.PAGES_SKIPPED.value(pagesSkipped + openPagesSkipped));
        metrics.add(GdsMetric.PAGE_INDEX_FALLBACKS.value(pageIndexFallbacks + openPageIndexFallbacks));
        metrics.add(GdsMetric.ROWS_FILTERED.value(rowsFiltered + openRowsFiltered));
        metrics.add(GdsMetric.FILES_SKIPPED.value(filesSkipped));
        metrics.add(GdsMetric.ROUTE_FALLBACKS.value(routeFallbacks));
        return metrics.toArray(new CustomTaskMetric[0]);
    }

    /** A source still open, with its route. */
    public record ReadCountersOf(IoRoute route, ReadCounters counters) {}
}
