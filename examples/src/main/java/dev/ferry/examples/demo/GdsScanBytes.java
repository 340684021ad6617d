package dev.ferry.examples.demo;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.execution.exchange.ReusedExchangeExec;
import org.apache.spark.sql.execution.metric.SQLMetric;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * What the {@code gds} reader's scans of one executed plan read, per file route (its {@code hostBytes},
 * {@code bounceBytes} and {@code gdsBytes} metrics), and how many scans were the {@code gds} reader's.
 */
record GdsScanBytes(int gdsScans, Map<String, Long> bytesPerRoute)
{
    /** The reader's per-route byte metrics (dev.ferry.gds.metrics.GdsMetric), by the route they count. */
    private static final Map<String, String> ROUTE_METRICS = Map.of("HOST", "hostBytes", "BOUNCE", "bounceBytes", "GDS", "gdsBytes");
    private static final List<String> ROUTES = List.of("HOST", "BOUNCE", "GDS");

    static GdsScanBytes of(SparkPlan plan)
    {
        Map<String, Long> bytes = new LinkedHashMap<>();
        ROUTES.forEach(route -> bytes.put(route, 0L));
        int scans = add(plan, bytes);
        return new GdsScanBytes(scans, bytes);
    }

    private static int add(SparkPlan plan, Map<String, Long> bytes)
    {
        if (plan instanceof AdaptiveSparkPlanExec adaptive) {
            return add(adaptive.executedPlan(), bytes);
        }
        if (plan instanceof QueryStageExec stage) {
            return add(stage.plan(), bytes);
        }
        if (plan instanceof ReusedExchangeExec) {
            return 0;
        }
        int scans = 0;
        if (plan instanceof BatchScanExec scan && scan.scan().getClass().getName().equals("dev.ferry.gds.spark.GdsScan")) {
            scans++;
            for (String route : ROUTES) {
                Option<SQLMetric> metric = plan.metrics().get(ROUTE_METRICS.get(route));
                if (metric.isDefined()) {
                    bytes.merge(route, Math.max(0, metric.get().value()), Long::sum);
                }
            }
        }
        for (SparkPlan child : CollectionConverters.asJava(plan.children())) {
            scans += add(child, bytes);
        }
        return scans;
    }

    long totalBytes()
    {
        return bytesPerRoute.values().stream().mapToLong(Long::longValue).sum();
    }
}
