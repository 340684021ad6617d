package dev.ferry.plugin;

import org.apache.spark.sql.ExtendedExplainGenerator;
import org.apache.spark.sql.execution.SparkPlan;

/** Another plugin's explain provider, which Ferry's registration must keep. */
public final class TheirExplain
        implements ExtendedExplainGenerator
{
    @Override
    public String title()
    {
        return "Theirs";
    }

    @Override
    public String generateExtendedInfo(SparkPlan plan)
    {
        return "theirs\n";
    }
}
