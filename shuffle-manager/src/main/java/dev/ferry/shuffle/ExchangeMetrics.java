package dev.ferry.shuffle;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import org.apache.spark.SparkContext;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.execution.metric.SQLMetrics;
import org.apache.spark.sql.execution.metric.SQLShuffleReadMetricsReporter$;

import static java.util.Objects.requireNonNull;

/**
 * Ferry's own SQL metrics of one exchange, beside Spark's shuffle read/write metrics: the data
 * size AQE plans with, bytes, blocks and fetch wait per route (LOCAL for this executor's store, then the
 * topology routes down to TCP), spill, and blocks rejected as corrupt; how many of them an exchange lists
 * is {@code spark.ferry.metrics.level}. They travel with the dependency to
 * the tasks, like Spark's own exchange metrics.
 */
public final class ExchangeMetrics
        implements Serializable
{
    private static final long serialVersionUID = 1L;

    public static final String DATA_SIZE = "dataSize";
    public static final String SPILL_SIZE = "ferrySpillSize";
    public static final String MEMORY_SPILLED = "ferryMemorySpilled";
    public static final String CORRUPT_BLOCKS = "ferryCorruptBlocks";
    public static final String ROUTE_LOCAL = "LOCAL";
    /** Routes the reader may report; a route not listed here is counted under its own name in logs only. */
    public static final List<String> ROUTES = List.of(ROUTE_LOCAL, "NVLINK", "PCIE_P2P", "PEER_GPU_D2H", "HOST_STAGED", "HOST_SHM", "GPUDIRECT_RDMA", "RDMA_HOST_STAGED", "RDMA",
            "IPOIB_TCP", "TCP");

    private final SQLMetric dataSize;
    private final SQLMetric spillSize;
    private final SQLMetric memorySpilled;
    private final SQLMetric corruptBlocks;
    private final Map<String, SQLMetric> routeMetrics;
    private final MetricsLevel level;

    private ExchangeMetrics(SQLMetric dataSize, SQLMetric spillSize, SQLMetric memorySpilled, SQLMetric corruptBlocks, Map<String, SQLMetric> routeMetrics,
            MetricsLevel level)
    {
        this.dataSize = requireNonNull(dataSize, "dataSize is null");
        this.spillSize = requireNonNull(spillSize, "spillSize is null");
        this.memorySpilled = requireNonNull(memorySpilled, "memorySpilled is null");
        this.corruptBlocks = requireNonNull(corruptBlocks, "corruptBlocks is null");
        this.routeMetrics = requireNonNull(routeMetrics, "routeMetrics is null");
        this.level = requireNonNull(level, "level is null");
    }

    /** Every route, at {@link MetricsLevel#DEBUG}. */
    public static ExchangeMetrics create(SparkContext context)
    {
        return create(context, MetricsLevel.DEBUG, new LinkedHashSet<>(ROUTES));
    }

    /**
     * Counters for the routes the level lists: {@code usableRoutes} (those the topology can use,
     * {@link UsableRoutes}) below {@link MetricsLevel#DEBUG}, every route at it. A block read over a
     * route without counters is still counted in Spark's read metrics (and the executor's route log).
     */
    public static ExchangeMetrics create(SparkContext context, MetricsLevel level, Set<String> usableRoutes)
    {
        Map<String, SQLMetric> routes = new LinkedHashMap<>();
        for (String route : ROUTES) {
            if (level != MetricsLevel.DEBUG && !usableRoutes.contains(route)) {
                continue;
            }
            // The demo finds per-executor bytes by this name in the task accumulators (ExecutorRouteBytes).
            routes.put(routeBytesKey(route), SQLMetrics.createSizeMetric(context, "bytes read via " + route, -1));
            routes.put(routeBlocksKey(route), SQLMetrics.createMetric(context, "blocks read via " + route));
            if (!route.equals(ROUTE_LOCAL)) {
                // A local read waits on no peer.
                routes.put(routeWaitKey(route), SQLMetrics.createTimingMetric(context, "fetch wait via " + route, -1));
            }
        }
        return new ExchangeMetrics(
                SQLMetrics.createSizeMetric(context, "data size", -1),
                SQLMetrics.createSizeMetric(context, "spilled to disk", -1),
                SQLMetrics.createSizeMetric(context, "memory spilled", -1),
                SQLMetrics.createMetric(context, "corrupt blocks"),
                routes, level);
    }

    /** Metrics not registered with any SparkContext: for code that runs outside a query (tests, tools). */
    public static ExchangeMetrics unregistered()
    {
        Map<String, SQLMetric> routes = new LinkedHashMap<>();
        for (String route : ROUTES) {
            routes.put(routeBytesKey(route), new SQLMetric("size", -1));
            routes.put(routeBlocksKey(route), new SQLMetric("sum", 0));
            if (!route.equals(ROUTE_LOCAL)) {
                routes.put(routeWaitKey(route), new SQLMetric("timing", -1));
            }
        }
        return new ExchangeMetrics(new SQLMetric("size", -1), new SQLMetric("size", -1), new SQLMetric("size", -1), new SQLMetric("sum", 0), routes,
                MetricsLevel.DEBUG);
    }

    public MetricsLevel level()
    {
        return level;
    }

    public static String routeBytesKey(String route)
    {
        return "ferryRoute" + route.toUpperCase(Locale.ROOT) + "Bytes";
    }

    public static String routeBlocksKey(String route)
    {
        return "ferryRoute" + route.toUpperCase(Locale.ROOT) + "Blocks";
    }

    /** Milliseconds reduce tasks waited on fetches over the route. */
    public static String routeWaitKey(String route)
    {
        return "ferryRoute" + route.toUpperCase(Locale.ROOT) + "FetchWait";
    }

    public SQLMetric dataSize()
    {
        return dataSize;
    }

    public SQLMetric spillSize()
    {
        return spillSize;
    }

    /** Execution memory the map side gave back by spilling its payloads (when Spark asked, or granted less). */
    public SQLMetric memorySpilled()
    {
        return memorySpilled;
    }

    public SQLMetric corruptBlocks()
    {
        return corruptBlocks;
    }

    public Map<String, SQLMetric> routeMetrics()
    {
        return routeMetrics;
    }

    /** Counts a block read over {@code route}. */
    public void addRoute(String route, long bytes)
    {
        SQLMetric bytesMetric = routeMetrics.get(routeBytesKey(route));
        SQLMetric blocksMetric = routeMetrics.get(routeBlocksKey(route));
        if (bytesMetric != null) {
            bytesMetric.add(bytes);
        }
        if (blocksMetric != null) {
            blocksMetric.add(1);
        }
    }

    /** Charges {@code millis} of a reduce task's wait for a fetch to {@code route}. */
    public void addFetchWait(String route, long millis)
    {
        SQLMetric wait = routeMetrics.get(routeWaitKey(route));
        if (wait != null) {
            wait.add(millis);
        }
    }

    /** Those the level shows, keyed as the exchange's {@code metrics()} lists them (the hidden ones still count). */
    public Map<String, SQLMetric> asMap()
    {
        Map<String, SQLMetric> all = new LinkedHashMap<>();
        all.put(DATA_SIZE, dataSize);
        all.put(SPILL_SIZE, spillSize);
        if (level != MetricsLevel.ESSENTIAL) {
            all.put(MEMORY_SPILLED, memorySpilled);
        }
        all.put(CORRUPT_BLOCKS, corruptBlocks);
        all.putAll(routeMetrics);
        return all;
    }

    /**
     * Which of Spark's shuffle-read metric keys an exchange lists at {@code level}: never the
     * push-based-shuffle ("merged") counters, which Ferry's reader never moves; at essential only
     * records read and the total fetch wait (the per-route counters carry the rest).
     */
    public static boolean showsSparkReadMetric(MetricsLevel level, String key)
    {
        if (key.toLowerCase(Locale.ROOT).contains("merged")) {
            return false;
        }
        if (level == MetricsLevel.ESSENTIAL) {
            return key.equals(SQLShuffleReadMetricsReporter$.MODULE$.RECORDS_READ()) || key.equals(SQLShuffleReadMetricsReporter$.MODULE$.FETCH_WAIT_TIME());
        }
        return true;
    }
}
