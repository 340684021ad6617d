package dev.ferry.gds.metrics;

import org.apache.spark.sql.connector.metric.CustomTaskMetric;

import static java.util.Objects.requireNonNull;

/** One metric's value in one task (or on the driver). */
public record GdsTaskMetric(String name, long value)
        implements CustomTaskMetric
{
    public GdsTaskMetric
    {
        requireNonNull(name, "name is null");
    }
}
