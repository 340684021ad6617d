package dev.ferry.shuffle;

/** How many SQL metrics each Ferry exchange shows ({@code spark.ferry.metrics.level}); docs/deploying.md lists each. */
public enum MetricsLevel
{
    /** What a screen holds: sizes, spill, corrupt blocks, route fallbacks in all, and bytes, blocks and fetch wait per route the topology can use. */
    ESSENTIAL,
    /** Also the memory given back by spilling, Spark's detailed shuffle-read counters, and route fallbacks per step between usable routes. */
    MODERATE,
    /** Also every route Ferry knows, and every fallback step, whether or not the topology can use it. */
    DEBUG
}
