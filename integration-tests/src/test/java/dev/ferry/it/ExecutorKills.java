package dev.ferry.it;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.spark.SparkEnv;
import org.apache.spark.sql.SparkSession;
import scala.jdk.javaapi.CollectionConverters;

/** Kills an executor of a local cluster from the driver and waits until Spark has really let it go. */
final class ExecutorKills
{
    private ExecutorKills() {}

    /** Kills {@code executorId} and returns once neither the scheduler nor the block manager master lists it (at most 60 s). */
    static void killAndWait(SparkSession spark, String executorId)
            throws InterruptedException
    {
        if (!spark.sparkContext().killExecutor(executorId)) {
            throw new IllegalStateException("Spark refused to kill executor " + executorId + " (executors " + executorIds(spark) + ")");
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (executorIds(spark).contains(executorId) || SparkEnv.get().blockManager().master().getExecutorEndpointRef(executorId).isDefined()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Executor " + executorId + " still registered 60 s after it was killed (executors " + executorIds(spark) + ")");
            }
            Thread.sleep(50);
        }
    }

    static List<String> executorIds(SparkSession spark)
    {
        return CollectionConverters.asJava(spark.sparkContext().getExecutorIds());
    }
}
