package dev.ferry.it;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AQEShuffleReadExec;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.exchange.ReusedExchangeExec;
import scala.jdk.javaapi.CollectionConverters;

/** Walks an executed plan through AQE's wrappers (adaptive root, query stages, reused exchanges). */
final class Plans
{
    private Plans() {}

    static List<SparkPlan> nodes(SparkPlan plan)
    {
        List<SparkPlan> nodes = new ArrayList<>();
        collect(plan, nodes);
        return nodes;
    }

    private static void collect(SparkPlan plan, List<SparkPlan> nodes)
    {
        nodes.add(plan);
        if (plan instanceof AdaptiveSparkPlanExec) {
            collect(((AdaptiveSparkPlanExec) plan).executedPlan(), nodes);
            return;
        }
        if (plan instanceof QueryStageExec) {
            collect(((QueryStageExec) plan).plan(), nodes);
            return;
        }
        if (plan instanceof ReusedExchangeExec) {
            collect(((ReusedExchangeExec) plan).child(), nodes);
            return;
        }
        for (SparkPlan child : CollectionConverters.asJava(plan.children())) {
            collect(child, nodes);
        }
    }

    static boolean isFerryExchange(SparkPlan plan)
    {
        return plan.nodeName().equals(QueryComparison.FERRY_EXCHANGE);
    }

    /** AQE shuffle reads sitting (through their stage) on Ferry's exchange and matching {@code test}. */
    static List<AQEShuffleReadExec> ferryReads(SparkPlan plan, Predicate<AQEShuffleReadExec> test)
    {
        List<AQEShuffleReadExec> reads = new ArrayList<>();
        for (SparkPlan node : nodes(plan)) {
            if (node instanceof AQEShuffleReadExec && test.test((AQEShuffleReadExec) node)
                    && nodes(((AQEShuffleReadExec) node).child()).stream().anyMatch(Plans::isFerryExchange)) {
                reads.add((AQEShuffleReadExec) node);
            }
        }
        return reads;
    }

    static List<SparkPlan> ferryExchanges(SparkPlan plan)
    {
        return nodes(plan).stream().filter(Plans::isFerryExchange).toList();
    }
}
