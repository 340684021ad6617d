package dev.ferry.shuffle;

/** How many SQL metrics each Ferry exchange shows ({@code spark.ferry.metrics.level}); docs/deploying.md lists each. */
public enum MetricsLevel
{
    /** What a screen holds: sizes, spill, corrupt blocks, and bytes, blocks and fetch wait per route the topology can use. */
    ESSENTIAL,
    /** Also the memory given back by spilling and Spark's detailed shuffle-read counters. */
    MODERATE,
    /** Also every route Ferry knows, whether or not the topology can use it. */
    DEBUG
}
