package dev.ferry.examples.etl;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.QueryExecution;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.util.QueryExecutionListener;

import static java.util.Objects.requireNonNull;

/**
 * The executed plan of a {@code DataFrameWriter} call. A write runs its own query execution, which
 * the caller never sees; Spark hands it to query execution listeners, asynchronously, after the
 * command finished. So: register before the write, {@link #next()} after it, bounded.
 */
public final class ExecutedPlans
        implements QueryExecutionListener, AutoCloseable
{
    private static final long WAIT_SECONDS = 60;

    private final SparkSession spark;
    private final BlockingQueue<SparkPlan> plans = new LinkedBlockingQueue<>();

    private ExecutedPlans(SparkSession spark)
    {
        this.spark = requireNonNull(spark, "spark is null");
    }

    public static ExecutedPlans listen(SparkSession spark)
    {
        ExecutedPlans listener = new ExecutedPlans(spark);
        spark.listenerManager().register(listener);
        return listener;
    }

    @Override
    public void onSuccess(String funcName, QueryExecution qe, long durationNs)
    {
        plans.add(qe.executedPlan());
    }

    @Override
    public void onFailure(String funcName, QueryExecution qe, Exception exception)
    {
        // A failed write surfaces as an exception from the write call itself.
    }

    /** Forgets plans of earlier queries. */
    public void clear()
    {
        plans.clear();
    }

    /**
     * The next finished plan that shuffled. Skips plans of writes without a shuffle (generating the
     * input) whose events the listener bus delivers only after this listener was registered.
     */
    public SparkPlan nextWithShuffle()
            throws InterruptedException
    {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (true) {
            long left = deadline - System.nanoTime();
            SparkPlan plan = left > 0 ? plans.poll(left, TimeUnit.NANOSECONDS) : null;
            if (plan == null) {
                throw new IllegalStateException("Spark reported no finished query with a shuffle within " + WAIT_SECONDS + " s");
            }
            ShuffleSummary summary = ShuffleSummary.of(plan);
            if (summary.ferryExchanges() + summary.sparkExchanges() > 0) {
                return plan;
            }
        }
    }

    @Override
    public void close()
    {
        spark.listenerManager().unregister(this);
    }
}
