package dev.ferry.gds.spark;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.execution.metric.SQLMetric;
import scala.jdk.javaapi.CollectionConverters;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Reads the custom metrics of the gds scans of an executed query. */
final class ScanMetrics
{
    private ScanMetrics() {}

    /** Collects {@code frame} and returns its rows together with the summed metric values of its gds scans. */
    static Result collect(Dataset<Row> frame)
    {
        List<Row> rows = frame.collectAsList();
        List<BatchScanExec> scans = new ArrayList<>();
        find(frame.queryExecution().executedPlan(), scans);
        if (scans.isEmpty()) {
            throw new AssertionError("No BatchScanExec in " + frame.queryExecution().executedPlan());
        }
        java.util.HashMap<String, Long> values = new java.util.HashMap<>();
        for (BatchScanExec scan : scans) {
            for (Map.Entry<String, SQLMetric> metric : CollectionConverters.asJava(scan.metrics()).entrySet()) {
                values.merge(metric.getKey(), metric.getValue().value(), Long::sum);
            }
        }
        return new Result(rows, values);
    }

    private static void find(SparkPlan plan, List<BatchScanExec> scans)
    {
        if (plan instanceof AdaptiveSparkPlanExec) {
            find(((AdaptiveSparkPlanExec) plan).executedPlan(), scans);
            return;
        }
        if (plan instanceof QueryStageExec) {
            find(((QueryStageExec) plan).plan(), scans);
            return;
        }
        if (plan instanceof BatchScanExec) {
            scans.add((BatchScanExec) plan);
        }
        for (SparkPlan child : CollectionConverters.asJava(plan.children())) {
            find(child, scans);
        }
    }

    record Result(List<Row> rows, Map<String, Long> metrics)
    {
        long metric(String name)
        {
            Long value = metrics.get(name);
            if (value == null) {
                throw new AssertionError("No metric " + name + " in " + metrics.keySet());
            }
            return value;
        }
    }
}
