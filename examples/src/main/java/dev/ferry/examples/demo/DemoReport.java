package dev.ferry.examples.demo;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.ferry.topology.report.DecisionReport;
import dev.ferry.topology.report.HtmlReport;
import dev.ferry.topology.report.LinkTraffic;
import dev.ferry.topology.report.SvgRenderer;

/** The demo's HTML report: what ran, the result tables, and the simulated cluster drawn with the bytes its links carried. */
final class DemoReport
{
    private DemoReport() {}

    static String html(DemoArguments arguments, DecisionReport decisions, String topologySummary, Map<String, LinkTraffic.Place> places, DemoResults results,
            Map<String, Map<String, Long>> readBytes, LinkTraffic.Attribution traffic, long seconds)
    {
        HtmlReport report = new HtmlReport("Ferry demo: " + decisions.cluster().name());
        report.paragraph(String.format("%d shuffle-heavy queries over %s (%s of Parquet), run on %s with Ferry (the gds reader and Ferry's shuffle, "
                        + "simulated device backend, shuffle blocks kept in simulated GPU memory) and with Spark alone (Spark's Parquet reader and sort shuffle). "
                        + "Finished %s after %d s. Result check: %s.",
                results.queries().size(), results.size().label(), FileSizes.megabytes(results.tableBytes().values().stream().mapToLong(Long::longValue).sum()),
                arguments.master(), Instant.now(), seconds, results.allAgree() ? "every query returned the same rows both ways" : "RESULTS DIFFER"));

        report.heading("Query times and shuffle bytes written");
        table(report, DemoTables.queries(results));
        report.heading("Bytes Ferry's shuffle read per route");
        table(report, DemoTables.routes(results));
        List<List<String>> scans = new ArrayList<>();
        results.gdsReadBytes().forEach((route, bytes) -> scans.add(List.of(route, DemoTables.bytes(bytes))));
        report.heading("Parquet read by the gds reader, per file route");
        report.table(List.of("file route", "bytes"), scans);

        report.heading("The simulated cluster and the bytes each link carried");
        report.paragraph("Each executor JVM is placed on a (node, GPU) of " + arguments.topology() + ". Shuffle counters are kept by the reading executor, "
                + "so a GPU's link to the NVSwitch or to its NIC shows the bytes the executor on that GPU received over it; the line between the nodes shows "
                + "all bytes that crossed it; the legend sums each route. A GPU's link to an NVMe drive is labelled with the route a file on that "
                + "drive would take (GDS where the drive and kernel allow it); the Parquet the gds reader read is in the legend under the route it "
                + "really took (HOST, BOUNCE or GDS): its metrics are kept per scan, not per executor, so no single link can be given them.");
        report.svg(SvgRenderer.render(decisions, drawnBytes(traffic, results)));
        for (String note : traffic.notes()) {
            report.paragraph("Note: " + note);
        }
        table(report, DemoTables.executors(places, readBytes));

        report.heading("Route decisions");
        report.preformatted(topologySummary);
        report.heading("The queries");
        List<List<String>> queries = new ArrayList<>();
        DemoQueries.ALL.forEach(query -> queries.add(List.of(query.name(), query.shape(), query.sql())));
        report.table(List.of("query", "shape", "SQL"), queries);
        return report.render();
    }

    /** The shuffle's link and route bytes, and the scans' bytes per file route (HOST, BOUNCE, GDS) for the legend. */
    static Map<String, Long> drawnBytes(LinkTraffic.Attribution traffic, DemoResults results)
    {
        Map<String, Long> bytes = new TreeMap<>(traffic.bytes());
        results.gdsReadBytes().forEach((route, count) -> {
            if (count > 0) {
                bytes.merge(route, count, Long::sum);
            }
        });
        return bytes;
    }

    private static void table(HtmlReport report, DemoTables.Table table)
    {
        report.table(table.header(), table.rows());
    }
}
