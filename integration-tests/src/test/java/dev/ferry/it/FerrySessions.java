package dev.ferry.it;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.spark.sql.SparkSession;

/** Spark sessions the way users run Ferry: the plugin, Ferry's shuffle manager, and small settings for 2-core CI. */
final class FerrySessions
{
    /**
     * Serial GC and C1 only in every executor JVM these sessions start (as the demo and {@link TopologyClusters} do): on
     * CI's two cores, two or four executors plus the driver otherwise spend much of a short test in parallel GC and C2
     * compiler threads that fight each other. What runs and what is asserted is the same.
     */
    static final String EXECUTOR_JVM_OPTIONS = "-XX:+UseSerialGC -XX:TieredStopAtLevel=1";

    private FerrySessions() {}

    static SparkSession.Builder builder(String master)
    {
        return SparkSession.builder()
                .master(master)
                .appName("ferry-integration-tests")
                .config("spark.shuffle.manager", "dev.ferry.shuffle.FerryShuffleManager")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "8")
                .config("spark.sql.adaptive.enabled", "true")
                // Joins must shuffle both sides: no broadcast unless a test asks for it.
                .config("spark.sql.autoBroadcastJoinThreshold", "-1")
                .config("spark.sql.adaptive.autoBroadcastJoinThreshold", "-1")
                .config("spark.sql.session.timeZone", "UTC");
    }

    static SparkSession local()
    {
        return builder("local[2]").config("spark.plugins", "dev.ferry.FerryPlugin").getOrCreate();
    }

    /**
     * Two executor JVMs, so blocks really cross processes; no Spark distribution needed: executors
     * get this JVM's class path (Maven's test class path) and the two launcher settings Spark's own
     * test setup provides. The plugin runs in every executor JVM, as it does on a real cluster.
     */
    static SparkSession localCluster()
            throws InterruptedException
    {
        return localCluster(Map.of());
    }

    /** As {@link #localCluster()}, with {@code settings} on top (Spark's security settings, say). */
    static SparkSession localCluster(Map<String, String> settings)
            throws InterruptedException
    {
        SparkSession.Builder builder = builder("local-cluster[2,1,1024]");
        settings.forEach(builder::config);
        return localCluster(builder, "768m", "-Xss4m");
    }

    /**
     * {@code builder}'s local-cluster master with two executors of {@code executorMemory} heap
     * (the worker size in the master must hold it) and {@code javaOptions}; waits for both.
     */
    static SparkSession localCluster(SparkSession.Builder builder, String executorMemory, String javaOptions)
            throws InterruptedException
    {
        SparkSession spark = builder
                .config("spark.plugins", "dev.ferry.FerryPlugin")
                // These sessions test the TCP transport between executor JVMs: same-host executors would otherwise route by their probes (TestProbedRoutes).
                .config("spark.ferry.topology.probedRoutes", "false")
                .config("spark.executor.memory", executorMemory)
                .config("spark.executorEnv.SPARK_SCALA_VERSION", "2.13")
                .config("spark.executorEnv.SPARK_TESTING", "1")
                .config("spark.executor.extraClassPath", System.getProperty("java.class.path"))
                .config("spark.executor.extraJavaOptions", EXECUTOR_JVM_OPTIONS + " " + javaOptions)
                .getOrCreate();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (spark.sparkContext().statusTracker().getExecutorInfos().length < 3) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Executors did not start within 120 s");
            }
            Thread.sleep(100);
        }
        return spark;
    }
}
