package dev.ferry.shuffle;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import dev.ferry.shuffle.format.CompressionKind;
import dev.ferry.shuffle.transport.metrics.PeerRouteFallbacks;
import dev.ferry.topology.route.Route;
import dev.ferry.topology.route.RoutePolicy;
import dev.ferry.topology.route.RoutePolicyConfig;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.execution.metric.SQLMetrics;
import org.apache.spark.sql.execution.metric.SQLShuffleReadMetricsReporter$;

import static java.util.Objects.requireNonNull;

/**
 * Ferry's own SQL metrics of one exchange, beside Spark's shuffle read/write metrics: the data
 * size AQE plans with, bytes, blocks and fetch wait per route (LOCAL for this executor's store, then the
 * topology routes down to TCP), spill, blocks rejected as corrupt, and the per-peer route fallbacks its
 * reads took (in all, and per step of the route policy's chain); how many of them an exchange lists
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
    /** Route fallbacks of every step together (the per-step counters split them). */
    public static final String ROUTE_FALLBACKS = "ferryFallbacks";
    public static final String ROUTE_LOCAL = "LOCAL";
    /** Routes the reader may report; a route not listed here is counted under its own name in logs only. */
    public static final List<String> ROUTES = List.of(ROUTE_LOCAL, "NVLINK", "PCIE_P2P", "PEER_GPU_D2H", "HOST_STAGED", "HOST_SHM", "GPUDIRECT_RDMA", "RDMA_HOST_STAGED", "RDMA",
            "IPOIB_TCP", "TCP");
    /**
     * The steps a peer's route can fall back by ({@code FROM->TO}, the route policy's chain over
     * {@link #ROUTES}: {@code NVLINK->HOST_STAGED}, {@code GPUDIRECT_RDMA->RDMA_HOST_STAGED}, ...).
     */
    public static final List<String> FALLBACK_STEPS = fallbackSteps();
    /** The codecs a map output can be written with ({@code auto} is resolved to one of them per map task). */
    public static final List<CompressionKind> MAP_CODECS = List.of(CompressionKind.NONE, CompressionKind.LZ4, CompressionKind.ZSTD);

    private final SQLMetric dataSize;
    private final SQLMetric spillSize;
    private final SQLMetric memorySpilled;
    private final SQLMetric corruptBlocks;
    private final Map<String, SQLMetric> routeMetrics;
    private final SQLMetric routeFallbacks;
    private final Map<String, SQLMetric> fallbackMetrics;
    private final Map<String, SQLMetric> codecMetrics;
    private final MetricsLevel level;

    private ExchangeMetrics(SQLMetric dataSize, SQLMetric spillSize, SQLMetric memorySpilled, SQLMetric corruptBlocks, Map<String, SQLMetric> routeMetrics,
            SQLMetric routeFallbacks, Map<String, SQLMetric> fallbackMetrics, Map<String, SQLMetric> codecMetrics, MetricsLevel level)
    {
        this.codecMetrics = requireNonNull(codecMetrics, "codecMetrics is null");
        this.routeFallbacks = requireNonNull(routeFallbacks, "routeFallbacks is null");
        this.fallbackMetrics = requireNonNull(fallbackMetrics, "fallbackMetrics is null");
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
     * Route fallbacks: their total at every level (a fallback is never silent); per step from
     * {@link MetricsLevel#MODERATE}, the steps between usable routes there, every step at debug.
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
        Map<String, SQLMetric> fallbacks = new LinkedHashMap<>();
        for (String step : FALLBACK_STEPS) {
            if (level == MetricsLevel.DEBUG || (level == MetricsLevel.MODERATE && usableRoutes.containsAll(List.of(step.split("->"))))) {
                fallbacks.put(fallbackKey(step), SQLMetrics.createMetric(context, "route fallbacks " + step));
            }
        }
        // Which codec the map tasks wrote with: with codec auto, what each map task's link decided.
        Map<String, SQLMetric> codecs = new LinkedHashMap<>();
        if (level != MetricsLevel.ESSENTIAL) {
            for (CompressionKind codec : MAP_CODECS) {
                codecs.put(mapCodecKey(codec), SQLMetrics.createMetric(context, "map outputs written with " + codec.name().toLowerCase(Locale.ROOT)));
            }
        }
        return new ExchangeMetrics(
                SQLMetrics.createSizeMetric(context, "data size", -1),
                SQLMetrics.createSizeMetric(context, "spilled to disk", -1),
                SQLMetrics.createSizeMetric(context, "memory spilled", -1),
                SQLMetrics.createMetric(context, "corrupt blocks"),
                routes, SQLMetrics.createMetric(context, "route fallbacks"), fallbacks, codecs, level);
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
        Map<String, SQLMetric> fallbacks = new LinkedHashMap<>();
        for (String step : FALLBACK_STEPS) {
            fallbacks.put(fallbackKey(step), new SQLMetric("sum", 0));
        }
        Map<String, SQLMetric> codecs = new LinkedHashMap<>();
        for (CompressionKind codec : MAP_CODECS) {
            codecs.put(mapCodecKey(codec), new SQLMetric("sum", 0));
        }
        return new ExchangeMetrics(new SQLMetric("size", -1), new SQLMetric("size", -1), new SQLMetric("size", -1), new SQLMetric("sum", 0), routes,
                new SQLMetric("sum", 0), fallbacks, codecs, MetricsLevel.DEBUG);
    }

    private static List<String> fallbackSteps()
    {
        // The chain is the route policy's (defined once there); its steps do not depend on the policy's settings.
        RoutePolicy policy = new RoutePolicy(RoutePolicyConfig.defaults());
        List<String> steps = new ArrayList<>();
        for (String route : ROUTES) {
            if (!route.equals(ROUTE_LOCAL)) {
                policy.fallbackAfter(Route.valueOf(route), "listing the fallback steps").ifPresent(next -> steps.add(PeerRouteFallbacks.step(Route.valueOf(route), next.route())));
            }
        }
        return List.copyOf(steps);
    }

    /** The key of a fallback step's counter: {@code NVLINK->HOST_STAGED} is {@code ferryFallbackNVLINKToHOST_STAGED}. */
    public static String fallbackKey(String step)
    {
        int arrow = step.indexOf("->");
        if (arrow <= 0 || arrow + 2 >= step.length()) {
            throw new IllegalArgumentException("Not a fallback step (FROM->TO): " + step);
        }
        return "ferryFallback" + step.substring(0, arrow).toUpperCase(Locale.ROOT) + "To" + step.substring(arrow + 2).toUpperCase(Locale.ROOT);
    }

    public MetricsLevel level()
    {
        return level;
    }

    /** The key of the count of map outputs written with {@code codec}: {@code ferryMapCodecLZ4}. */
    public static String mapCodecKey(CompressionKind codec)
    {
        if (!MAP_CODECS.contains(codec)) {
            throw new IllegalArgumentException("Map outputs are written with one of " + MAP_CODECS + ", not " + codec);
        }
        return "ferryMapCodec" + codec.name();
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

    /** Route fallbacks of every step together. */
    public SQLMetric routeFallbacks()
    {
        return routeFallbacks;
    }

    /** The per-step fallback counters the level lists, by {@link #fallbackKey}. */
    public Map<String, SQLMetric> fallbackMetrics()
    {
        return fallbackMetrics;
    }

    /**
     * A reader's peer fell back by {@code step} ({@code FROM->TO}): counted in the total, and in the
     * step's counter where the level lists it. Once per peer and step in an executor: later fetches
     * from that peer go straight to the next route and count nothing.
     */
    public void addFallback(String step)
    {
        routeFallbacks.add(1);
        SQLMetric perStep = fallbackMetrics.get(fallbackKey(step));
        if (perStep != null) {
            perStep.add(1);
        }
    }

    /** A map task wrote its output with {@code codec} (what {@code auto} resolved to on its executor, or the codec set). */
    public void addMapCodec(CompressionKind codec)
    {
        SQLMetric count = codecMetrics.get(mapCodecKey(codec));
        if (count != null) {
            count.add(1);
        }
    }

    /** The map-output codec counters the level lists, by {@link #mapCodecKey}. */
    public Map<String, SQLMetric> codecMetrics()
    {
        return codecMetrics;
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
        all.put(ROUTE_FALLBACKS, routeFallbacks);
        all.putAll(routeMetrics);
        all.putAll(fallbackMetrics);
        all.putAll(codecMetrics);
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
