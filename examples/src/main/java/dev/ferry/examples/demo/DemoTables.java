package dev.ferry.examples.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.ferry.topology.report.LinkTraffic;

/** The demo's result tables as header and rows, printed on the console by {@link DemoSummary} and in HTML by {@link DemoReport}. */
final class DemoTables
{
    /** A table: its header and rows of cells. */
    record Table(List<String> header, List<List<String>> rows)
    {
    }

    private DemoTables() {}

    static Table queries(DemoResults results)
    {
        List<List<String>> rows = new ArrayList<>();
        for (QueryComparison query : results.queries()) {
            rows.add(List.of(query.query().name(), FileSizes.seconds(query.ferry().millis()), FileSizes.seconds(query.spark().millis()), ratio(query.speedup()),
                    bytes(query.ferry().shuffles().bytesWritten()), bytes(query.spark().shuffles().bytesWritten()),
                    query.sameRows() ? "agree (" + query.ferry().rows().size() + " rows)" : "DIFFER (" + query.ferry().rows().size() + " vs " + query.spark().rows().size() + " rows)"));
        }
        rows.add(List.of("all queries", FileSizes.seconds(results.ferryMillis()), FileSizes.seconds(results.sparkMillis()),
                ratio(results.sparkMillis() / (double) Math.max(1, results.ferryMillis())), bytes(results.ferryBytesWritten()), bytes(results.sparkBytesWritten()),
                results.allAgree() ? "all agree" : "NOT ALL AGREE"));
        return new Table(List.of("query", "Ferry", "Spark", "Spark/Ferry", "Ferry shuffle bytes written", "Spark shuffle bytes written", "results"), rows);
    }

    /** Routes that carried bytes (and LOCAL, this executor's own store, always), with their share. */
    static Table routes(DemoResults results)
    {
        Map<String, Long> routes = results.routeBytes();
        long total = routes.values().stream().mapToLong(Long::longValue).sum();
        List<List<String>> rows = new ArrayList<>();
        routes.forEach((route, bytes) -> {
            if (bytes > 0 || route.equals("LOCAL")) {
                rows.add(List.of(route, bytes(bytes), String.format(Locale.ROOT, "%.1f%%", total == 0 ? 0 : 100.0 * bytes / total), meaning(route)));
            }
        });
        return new Table(List.of("route", "bytes read", "share", "what it is here"), rows);
    }

    static Table executors(Map<String, LinkTraffic.Place> places, Map<String, Map<String, Long>> readBytes)
    {
        List<List<String>> rows = new ArrayList<>();
        places.forEach((executor, place) -> {
            Map<String, Long> routes = readBytes.getOrDefault(executor, Map.of());
            List<String> read = new ArrayList<>();
            routes.forEach((route, bytes) -> read.add(route + " " + bytes(bytes)));
            rows.add(List.of(executor, place.host() + place.gpu().map(gpu -> ":" + gpu).orElse(""), read.isEmpty() ? "-" : String.join(", ", read)));
        });
        return new Table(List.of("executor", "placed on", "bytes its reduce tasks read, per route"), rows);
    }

    private static String meaning(String route)
    {
        return switch (route) {
            case "LOCAL" -> "blocks the reading executor wrote itself";
            case "NVLINK" -> "same simulated node, NVLink: peer copy into the reader's GPU (device consumers)";
            case "PCIE_P2P" -> "same node, GPUs under one PCIe switch: peer copy into the reader's GPU (device consumers)";
            case "PEER_GPU_D2H" -> "same node, GPU-resident blocks for a CPU reduce: peer GPU memory opened by IPC handle, one D->H over the peer GPU's PCIe link";
            case "HOST_STAGED" -> "same node, no peer access: staged through host memory";
            case "HOST_SHM" -> "same node, host-resident blocks: shared memory";
            case "GPUDIRECT_RDMA" -> "other simulated node: the NIC reads the peer's registered GPU memory";
            case "RDMA_HOST_STAGED" -> "other node, no peer memory module: RDMA via host memory";
            case "RDMA" -> "other node, host-resident blocks: RDMA READ";
            default -> "socket";
        };
    }

    static String bytes(long bytes)
    {
        return String.format(Locale.ROOT, "%,d", bytes);
    }

    static String ratio(double ratio)
    {
        return String.format(Locale.ROOT, "%.2fx", ratio);
    }
}
