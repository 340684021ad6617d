package dev.ferry.examples.demo;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** The demo's closing summary on the console: times, bytes written, bytes per route, what the reader read, the result check. */
final class DemoSummary
{
    private final PrintStream out;

    DemoSummary(PrintStream out)
    {
        this.out = out;
    }

    void print(DemoResults results, long unreadableUpdates)
    {
        out.println();
        out.println("Query times (Ferry: gds reader + Ferry's shuffle; Spark: Spark's Parquet reader + sort shuffle; Spark/Ferry > 1 means Ferry was faster)");
        table(DemoTables.queries(results));
        out.println();
        out.println("Bytes Ferry's shuffle read per route, all queries");
        table(DemoTables.routes(results));
        Map<String, Long> read = results.gdsReadBytes();
        out.println();
        out.println("gds reader: " + read.entrySet().stream().map(entry -> entry.getKey() + " " + DemoTables.bytes(entry.getValue()) + " bytes")
                .collect(Collectors.joining(", ")) + " (per-file route; these queries are CPU consumers, which read on HOST: GDS and BOUNCE are for device consumers and need a GPU, "
                + "or the simulated backend and a file system that takes O_DIRECT)");
        if (results.sparkBytesWritten() > 0) {
            out.printf(Locale.ROOT, "Shuffle bytes written: Ferry %s, Spark %s (Ferry/Spark %.2f).%n", DemoTables.bytes(results.ferryBytesWritten()),
                    DemoTables.bytes(results.sparkBytesWritten()), results.ferryBytesWritten() / (double) results.sparkBytesWritten());
        }
        if (unreadableUpdates > 0) {
            out.println("Note: " + unreadableUpdates + " per-route metric updates were not numbers and are missing from the per-link bytes.");
        }
        for (QueryComparison query : results.queries()) {
            if (!query.ferryUsedItsExchange()) {
                out.println("Plan: " + query.query().name() + " did NOT use Ferry's exchange (or Spark's run did); Ferry's plan:\n" + query.ferry().plan());
            }
            if (!query.ferryUsedGdsReader()) {
                out.println("Note: " + query.query().name() + "'s Ferry run read no table with the gds reader; its plan:\n" + query.ferry().plan());
            }
            if (!query.sameRows()) {
                out.println("Results of " + query.query().name() + " differ: Ferry " + query.ferry().rows().size() + " rows, Spark " + query.spark().rows().size()
                        + "; first rows:\n  Ferry " + head(query.ferry().rows()) + "\n  Spark " + head(query.spark().rows()));
            }
        }
        out.println(results.allAgree()
                ? "Results: identical in all " + results.queries().size() + " queries, and every Ferry run used Ferry's exchange."
                : "Results: NOT identical (see above).");
    }

    private static String head(List<?> rows)
    {
        return rows.stream().limit(3).map(Object::toString).collect(Collectors.joining(" "));
    }

    private void table(DemoTables.Table table)
    {
        int columns = table.header().size();
        int[] widths = new int[columns];
        for (int i = 0; i < columns; i++) {
            widths[i] = table.header().get(i).length();
            for (List<String> row : table.rows()) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        print(table.header(), widths);
        table.rows().forEach(row -> print(row, widths));
    }

    private void print(List<String> cells, int[] widths)
    {
        StringBuilder line = new StringBuilder("  ");
        for (int i = 0; i < cells.size(); i++) {
            // First and last columns are text, left-aligned; the numbers between, right-aligned.
            boolean left = i == 0 || i == cells.size() - 1;
            String format = "%" + (left ? "-" : "") + widths[i] + "s";
            line.append(String.format(Locale.ROOT, format, cells.get(i)));
            if (i < cells.size() - 1) {
                line.append("  ");
            }
        }
        out.println(line.toString().stripTrailing());
    }
}
