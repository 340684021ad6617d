package dev.ferry.examples.sql;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.ferry.shuffle.ExchangeMetrics;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.exchange.ReusedExchangeExec;
import org.apache.spark.sql.execution.metric.SQLMetric;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/** Bytes and blocks each route carried, summed over the Ferry exchanges of executed plans. */
final class RouteTotals
{
    private static final String FERRY_EXCHANGE = "FerryColumnarExchange";

    private final Map<String, long[]> totals = new LinkedHashMap<>();

    RouteTotals()
    {
        for (String route : ExchangeMetrics.ROUTES) {
            totals.put(route, new long[2]);
        }
    }

    void add(SparkPlan plan)
    {
        if (plan instanceof AdaptiveSparkPlanExec) {
            add(((AdaptiveSparkPlanExec) plan).executedPlan());
            return;
        }
        if (plan instanceof QueryStageExec) {
            QueryStageExec stage = (QueryStageExec) plan;
            // A reused stage points at the same exchange as the original: count its bytes once.
            if (!(stage.plan() instanceof ReusedExchangeExec)) {
                add(stage.plan());
            }
            return;
        }
        if (plan.nodeName().equals(FERRY_EXCHANGE)) {
            for (String route : ExchangeMetrics.ROUTES) {
                long[] total = totals.get(route);
                total[0] += value(plan, ExchangeMetrics.routeBytesKey(route));
                total[1] += value(plan, ExchangeMetrics.routeBlocksKey(route));
            }
        }
        for (SparkPlan child : CollectionConverters.asJava(plan.children())) {
            add(child);
        }
    }

    private static long value(SparkPlan plan, String key)
    {
        Option<SQLMetric> metric = plan.metrics().get(key);
        return metric.isDefined() ? Math.max(0, metric.get().value()) : 0;
    }

    void print(PrintStream err)
    {
        totals.forEach((route, total) -> err.println("route " + route + " bytes=" + total[0] + " blocks=" + total[1]));
        err.flush();
    }
}
