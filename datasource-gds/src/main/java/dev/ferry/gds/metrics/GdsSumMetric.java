package dev.ferry.gds.metrics;

import org.apache.spark.sql.connector.metric.CustomSumMetric;

/**
 * A summed metric. Spark instantiates metric classes by name on the driver to aggregate them, so each
 * metric is its own class with a no-argument constructor.
 */
public abstract class GdsSumMetric
        extends CustomSumMetric
{
    private final GdsMetric metric;

    protected GdsSumMetric(GdsMetric metric)
    {
        this.metric = metric;
    }

    @Override
    public String name()
    {
        return metric.metricName();
    }

    @Override
    public String description()
    {
        return metric.description();
    }
}
