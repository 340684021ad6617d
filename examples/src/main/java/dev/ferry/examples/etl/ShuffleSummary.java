package dev.ferry.examples.etl;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.ferry.shuffle.ExchangeMetrics;
import dev.ferry.shuffle.exchange.FerryShuffleExchangeExec;
import org.apache.spark.sql.execution.CommandResultExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.exchange.ReusedExchangeExec;
import org.apache.spark.sql.execution.exchange.ShuffleExchangeLike;
import org.apache.spark.sql.execution.metric.SQLMetric;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * What the shuffles of one executed plan did: how many exchanges were Ferry's and how many Spark's,
 * the bytes their map tasks wrote (Spark's {@code shuffleBytesWritten} SQL metric, which both
 * exchanges fill from the task's shuffle write metrics), and the bytes Ferry's readers took over
 * each route. Walks through AQE's wrappers and a command's inner plan; a reused exchange counts once.
 */
public final class ShuffleSummary
{
    /** Spark's name of the bytes-written metric of an exchange (SQLShuffleWriteMetricsReporter). */
    private static final String BYTES_WRITTEN = "shuffleBytesWritten";

    private int ferryExchanges;
    private int sparkExchanges;
    private long ferryBytesWritten;
    private long sparkBytesWritten;
    private final Map<String, Long> routeBytes = new LinkedHashMap<>();
    private final List<Long> exchangeBytes = new ArrayList<>();
    private final List<String> exchangePartitionings = new ArrayList<>();

    private ShuffleSummary()
    {
        for (String route : ExchangeMetrics.ROUTES) {
            routeBytes.put(route, 0L);
        }
    }

    public static ShuffleSummary of(SparkPlan plan)
    {
        ShuffleSummary summary = new ShuffleSummary();
        summary.add(plan);
        return summary;
    }

    private void add(SparkPlan plan)
    {
        if (plan instanceof CommandResultExec) {
            add(((CommandResultExec) plan).commandPhysicalPlan());
            return;
        }
        if (plan instanceof AdaptiveSparkPlanExec) {
            add(((AdaptiveSparkPlanExec) plan).executedPlan());
            return;
        }
        if (plan instanceof QueryStageExec) {
            add(((QueryStageExec) plan).plan());
            return;
        }
        if (plan instanceof ReusedExchangeExec) {
            // Points at an exchange counted where it first appears.
            return;
        }
        if (plan instanceof FerryShuffleExchangeExec) {
            ferryExchanges++;
            ferryBytesWritten += value(plan, BYTES_WRITTEN);
            exchangeBytes.add(value(plan, BYTES_WRITTEN));
            exchangePartitionings.add(partitioning(plan));
            for (String route : ExchangeMetrics.ROUTES) {
                routeBytes.merge(route, value(plan, ExchangeMetrics.routeBytesKey(route)), Long::sum);
            }
        }
        else if (plan instanceof ShuffleExchangeLike) {
            sparkExchanges++;
            sparkBytesWritten += value(plan, BYTES_WRITTEN);
            exchangeBytes.add(value(plan, BYTES_WRITTEN));
            exchangePartitionings.add(partitioning(plan));
        }
        for (SparkPlan child : CollectionConverters.asJava(plan.children())) {
            add(child);
        }
    }

    /** E.g. {@code hashpartitioning(region, 4)}: the partitioning without expression ids. */
    private static String partitioning(SparkPlan plan)
    {
        return plan.outputPartitioning().toString().replaceAll("#\\d+L?", "");
    }

    private static long value(SparkPlan plan, String key)
    {
        Option<SQLMetric> metric = plan.metrics().get(key);
        return metric.isDefined() ? Math.max(0, metric.get().value()) : 0;
    }

    public int ferryExchanges()
    {
        return ferryExchanges;
    }

    public int sparkExchanges()
    {
        return sparkExchanges;
    }

    public long ferryBytesWritten()
    {
        return ferryBytesWritten;
    }

    public long sparkBytesWritten()
    {
        return sparkBytesWritten;
    }

    public long bytesWritten()
    {
        return ferryBytesWritten + sparkBytesWritten;
    }

    /** Bytes written by each exchange, root first (the plan's last shuffle first). */
    public List<Long> exchangeBytes()
    {
        return List.copyOf(exchangeBytes);
    }

    /** The partitioning of each exchange, in the order of {@link #exchangeBytes()}. */
    public List<String> exchangePartitionings()
    {
        return List.copyOf(exchangePartitionings);
    }

    /** Bytes Ferry's readers took per route (LOCAL, TCP, ...), in the order Ferry lists its routes. */
    public Map<String, Long> routeBytes()
    {
        return Collections.unmodifiableMap(new LinkedHashMap<>(routeBytes));
    }

    /** One line, e.g. {@code exchanges ferry=3 spark=0 bytesWritten=123 route.LOCAL=100 route.TCP=23}. */
    public String line()
    {
        StringBuilder line = new StringBuilder()
                .append("exchanges ferry=").append(ferryExchanges)
                .append(" spark=").append(sparkExchanges)
                .append(" bytesWritten=").append(bytesWritten());
        routeBytes.forEach((route, bytes) -> line.append(" route.").append(route).append('=').append(bytes));
        return line.toString();
    }
}
