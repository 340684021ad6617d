package dev.ferry.plugin.explain;

import org.apache.spark.sql.ExtendedExplainGenerator;
import org.apache.spark.sql.execution.SparkPlan;

/**
 * Spark's extended-explain hook ({@code spark.sql.extendedExplainProviders}, which the driver plugin
 * appends this class to): {@code EXPLAIN EXTENDED} and {@code EXPLAIN FORMATTED} end with a
 * "Ferry" section that says, for the plan before execution too, which exchanges and scans Ferry
 * takes and why it leaves the others to Spark.
 */
public final class FerryExplainGenerator
        implements ExtendedExplainGenerator
{
    @Override
    public String title()
    {
        return "Ferry";
    }

    @Override
    public String generateExtendedInfo(SparkPlan plan)
    {
        return PlanVerdicts.render(plan);
    }
}
