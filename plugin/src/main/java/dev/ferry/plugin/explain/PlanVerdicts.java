package dev.ferry.plugin.explain;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ferry.shuffle.exchange.ExchangeSupport;
import dev.ferry.shuffle.exchange.FerryFallbackExec;
import dev.ferry.shuffle.exchange.FerryShuffleExchangeExec;
import org.apache.spark.sql.execution.FileSourceScanExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.execution.exchange.ReusedExchangeExec;
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec;
import scala.jdk.javaapi.CollectionConverters;

/**
 * For each shuffle exchange and file scan of a physical plan, whether Ferry takes it and, if not,
 * why. Under AQE the plan before execution still holds Spark's exchanges (Ferry's rule runs as each
 * query stage is created), so a Spark exchange is judged by the same test the rule applies
 * ({@link ExchangeSupport#refusal}); after execution the stages hold Ferry's exchanges themselves.
 */
public final class PlanVerdicts
{
    private static final int NODE_TEXT = 80;
    private static final Pattern GDS_ROUTE = Pattern.compile("\\((HOST|BOUNCE|GDS)(?::\\s*([^;,)]*))?");
    private static final Pattern GDS_CONSUMER = Pattern.compile("consumer=(\\w+)");

    private PlanVerdicts() {}

    /** One node's verdict: {@code taken} by Ferry, with what takes it, or left to Spark with the reason. */
    public record Verdict(String kind, String node, boolean taken, String detail)
    {
        public String line()
        {
            return kind + " " + node + ": " + (taken ? "Ferry, " : "Spark, ") + detail;
        }
    }

    public static List<Verdict> of(SparkPlan plan)
    {
        List<Verdict> verdicts = new ArrayList<>();
        walk(plan, verdicts);
        return verdicts;
    }

    /** The explain text: a count, then one line per exchange and scan, in plan order (root first). */
    public static String render(SparkPlan plan)
    {
        List<Verdict> verdicts = of(plan);
        long exchanges = verdicts.stream().filter(v -> v.kind().equals("exchange")).count();
        long exchangesTaken = verdicts.stream().filter(v -> v.kind().equals("exchange") && v.taken()).count();
        long scans = verdicts.stream().filter(v -> v.kind().equals("scan")).count();
        long scansTaken = verdicts.stream().filter(v -> v.kind().equals("scan") && v.taken()).count();
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "Ferry takes %d of %d exchanges and %d of %d file scans", exchangesTaken, exchanges,
                scansTaken, scans));
        for (Verdict verdict : verdicts) {
            out.append("\n  ").append(verdict.line());
        }
        return out.append('\n').toString();
    }

    private static void walk(SparkPlan node, List<Verdict> out)
    {
        if (node instanceof AdaptiveSparkPlanExec adaptive) {
            walk(adaptive.executedPlan(), out);
            return;
        }
        if (node instanceof QueryStageExec stage) {
            walk(stage.plan(), out);
            return;
        }
        if (node instanceof ReusedExchangeExec) {
            // The exchange it reuses is judged where it first appears.
            return;
        }
        judge(node).ifPresent(out::add);
        for (SparkPlan child : CollectionConverters.asJava(node.children())) {
            walk(child, out);
        }
    }

    private static Optional<Verdict> judge(SparkPlan node)
    {
        if (node instanceof FerryShuffleExchangeExec ferry) {
            return Optional.of(new Verdict("exchange", exchangeText(ferry.outputPartitioning().toString()), true, "Arrow columnar exchange"));
        }
        if (node instanceof ShuffleExchangeExec exchange) {
            String text = exchangeText(exchange.outputPartitioning().toString());
            if (exchange.child() instanceof FerryFallbackExec fallback) {
                return Optional.of(new Verdict("exchange", text, false, fallback.reason().replaceFirst("^Ferry kept Spark's exchange: ", "")));
            }
            Optional<String> refusal = ExchangeSupport.refusal(exchange);
            return Optional.of(new Verdict("exchange", text, refusal.isEmpty(), refusal.orElse("Arrow columnar exchange")));
        }
        if (node instanceof BatchScanExec scan && scan.scan().getClass().getName().startsWith("dev.ferry.gds.")) {
            return Optional.of(new Verdict("scan", shorten(scan.nodeName()), true, "gds reader, " + gdsRoute(scan.scan().description())));
        }
        if (node instanceof FileSourceScanExec scan && scan.relation().fileFormat() instanceof ParquetFileFormat) {
            // A path scan has no table name: name it by its first root path.
            List<org.apache.hadoop.fs.Path> roots = CollectionConverters.asJava(scan.relation().location().rootPaths());
            String name = scan.tableIdentifier().isDefined() || roots.isEmpty() ? scan.nodeName().trim() : scan.nodeName().trim() + " " + roots.get(0);
            return Optional.of(new Verdict("scan", shorten(name), false, "Spark's Parquet reader (spark.read.format(\"gds\") reads it with Ferry's)"));
        }
        return Optional.empty();
    }

    /**
     * The route a gds scan's description names for this machine, with a few words of why:
     * {@code route=HOST (CPU consumer)}, {@code route=HOST (no GPU)}. The whole reason stays in the
     * scan's own explain string and the log.
     */
    static String gdsRoute(String description)
    {
        Matcher route = GDS_ROUTE.matcher(description);
        if (!route.find()) {
            return "route decided per file";
        }
        Matcher consumer = GDS_CONSUMER.matcher(description);
        if (consumer.find() && consumer.group(1).equalsIgnoreCase("cpu")) {
            return "route=" + route.group(1) + " (CPU consumer)";
        }
        String why = route.group(2) == null ? "" : route.group(2).trim();
        return "route=" + route.group(1) + (why.isEmpty() ? "" : " (" + shorten(why, 40) + ")");
    }

    private static String exchangeText(String partitioning)
    {
        return "Exchange " + shorten(partitioning);
    }

    private static String shorten(String text)
    {
        return shorten(text, NODE_TEXT);
    }

    private static String shorten(String text, int limit)
    {
        return text.length() <= limit ? text : text.substring(0, limit - 3) + "...";
    }
}
