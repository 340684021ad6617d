package dev.ferry.gds.spark;

import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.SparkSessionExtensionsProvider;
import scala.runtime.BoxedUnit;

/**
 * Registered through {@code META-INF/services/org.apache.spark.sql.SparkSessionExtensionsProvider}, so every session
 * with the gds data source's jar gets its logical rewrites. They run before Spark pushes operators into scans
 * ({@code injectPreCBORule}: after the operator optimizations, before the scan pushdown batch), and touch only plans
 * over gds tables.
 */
public final class GdsSessionExtensions
        implements SparkSessionExtensionsProvider
{
    @Override
    public BoxedUnit apply(SparkSessionExtensions extensions)
    {
        extensions.injectPreCBORule(session -> new SingleDistinctAggregateSplit());
        return BoxedUnit.UNIT;
    }
}
