package dev.ferry;

import dev.ferry.plugin.FerryDriverPlugin;
import dev.ferry.plugin.FerryExecutorPlugin;
import org.apache.spark.api.plugin.DriverPlugin;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.SparkPlugin;

/**
 * Ferry's entry point: {@code spark.plugins=dev.ferry.FerryPlugin}. The driver side collects where
 * every executor sits (node, GPUs, NICs, what its probes could not see); each executor probes its
 * machine once at start and reports it.
 */
public final class FerryPlugin
        implements SparkPlugin
{
    @Override
    public DriverPlugin driverPlugin()
    {
        return new FerryDriverPlugin();
    }

    @Override
    public ExecutorPlugin executorPlugin()
    {
        return new FerryExecutorPlugin();
    }
}
