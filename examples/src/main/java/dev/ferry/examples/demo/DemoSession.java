package dev.ferry.examples.demo;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.apache.spark.sql.SparkSession;

/**
 * The demo's Spark session: Ferry configured as users configure it, executors placed on the simulated
 * cluster of a topology file with the simulated device backend, so shuffle blocks stay in (simulated)
 * GPU memory and move over the routes the topology decides; no Spark distribution or GPU needed.
 */
final class DemoSession
{
    private static final long EXECUTOR_WAIT_SECONDS = 180;

    private DemoSession() {}

    static SparkSession start(String master, Path topology)
            throws InterruptedException
    {
        SparkSession.Builder builder = SparkSession.builder()
                .master(master)
                .appName("ferry-demo")
                .config("spark.plugins", "dev.ferry.FerryPlugin")
                .config("spark.shuffle.manager", "dev.ferry.shuffle.FerryShuffleManager")
                .config("spark.ferry.enabled", "true")
                .config("spark.ferry.topology.file", topology.toAbsolutePath().toString())
                // No GPU here: the simulated backend keeps "device" buffers in /dev/shm, shared by the executors
                // of one simulated node the way CUDA IPC shares GPU memory.
                .config("spark.ferry.device", "simulated")
                .config("spark.ferry.shuffle.stage", "device")
                .config("spark.ui.enabled", "false")
                // Spark's INFO lines would bury the demo's own; applied as the context starts.
                .config("spark.log.level", "WARN")
                .config("spark.sql.shuffle.partitions", "8")
                .config("spark.sql.adaptive.enabled", "true")
                // The dimension tables would be broadcast; shuffle both join sides so every join shows the exchange.
                .config("spark.sql.autoBroadcastJoinThreshold", "-1")
                .config("spark.sql.adaptive.autoBroadcastJoinThreshold", "-1")
                .config("spark.locality.wait", "0s")
                .config("spark.sql.session.timeZone", "UTC");
        boolean localCluster = master.startsWith("local-cluster");
        if (localCluster) {
            // What Spark's own launcher would provide: executors run from this JVM's class path. Serial GC and
            // C1 only: five JVMs share a laptop's (or CI's two) cores, where parallel GC and C2 threads fight.
            builder.config("spark.executorEnv.SPARK_SCALA_VERSION", "2.13")
                    .config("spark.executorEnv.SPARK_TESTING", "1")
                    .config("spark.executor.extraClassPath", System.getProperty("java.class.path"))
                    .config("spark.executor.extraJavaOptions", "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xss4m")
                    .config("spark.executor.memory", "768m");
        }
        SparkSession spark = builder.getOrCreate();
        spark.sparkContext().setLogLevel("WARN");
        if (localCluster) {
            int executors = Integer.parseInt(master.replaceAll("^local-cluster\\[\\s*(\\d+).*$", "$1"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(EXECUTOR_WAIT_SECONDS);
            while (spark.sparkContext().statusTracker().getExecutorInfos().length < executors + 1) {
                if (System.nanoTime() > deadline) {
                    spark.stop();
                    throw new IllegalStateException("The " + executors + " local-cluster executors did not start within " + EXECUTOR_WAIT_SECONDS + " s");
                }
                Thread.sleep(100);
            }
        }
        return spark;
    }
}
