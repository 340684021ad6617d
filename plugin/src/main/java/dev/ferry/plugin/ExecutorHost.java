package dev.ferry.plugin;

import org.apache.spark.SparkEnv;
import org.apache.spark.storage.BlockManagerId;
import org.apache.spark.util.Utils;

/**
 * The host name an executor is known by. {@code PluginContext.hostname()} cannot be used: in Spark
 * 4.2 it reads the RpcEnv's address, which a standalone or local-cluster executor's client-mode
 * RpcEnv does not have (it throws). The block manager's id carries the host the executor was
 * started with, the same name map output locations use.
 */
final class ExecutorHost
{
    private ExecutorHost() {}

    static String of(SparkEnv env)
    {
        if (env != null && env.blockManager() != null) {
            BlockManagerId id = env.blockManager().blockManagerId();
            if (id != null && id.host() != null) {
                return id.host();
            }
        }
        // Before the block manager registered: Spark's own choice of local host name
        // (SPARK_LOCAL_HOSTNAME, else the resolved local address).
        return Utils.localHostName();
    }
}
