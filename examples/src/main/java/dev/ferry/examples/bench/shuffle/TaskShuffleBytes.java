package dev.ferry.examples.bench.shuffle;

import java.util.concurrent.atomic.AtomicLong;

import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;

/**
 * Spark's task-level shuffle write metrics ({@code shuffleWriteMetrics.bytesWritten}) and CPU time
 * summed over the tasks that end between two resets: the cross-check of the exchanges' SQL metrics, counted
 * the same way for Ferry's writer and Spark's sort shuffle writer.
 */
public final class TaskShuffleBytes
        extends SparkListener
{
    private final AtomicLong bytesWritten = new AtomicLong();
    private final AtomicLong recordsWritten = new AtomicLong();
    private final AtomicLong cpuNanos = new AtomicLong();

    public void reset()
    {
        bytesWritten.set(0);
        recordsWritten.set(0);
        cpuNanos.set(0);
    }

    /** CPU time of the tasks (Spark's executorCpuTime): on a shared machine a steadier measure than wall time. */
    public long cpuNanos()
    {
        return cpuNanos.get();
    }

    public long bytesWritten()
    {
        return bytesWritten.get();
    }

    public long recordsWritten()
    {
        return recordsWritten.get();
    }

    @Override
    public void onTaskEnd(SparkListenerTaskEnd taskEnd)
    {
        if (taskEnd.taskMetrics() != null) {
            bytesWritten.addAndGet(taskEnd.taskMetrics().shuffleWriteMetrics().bytesWritten());
            recordsWritten.addAndGet(taskEnd.taskMetrics().shuffleWriteMetrics().recordsWritten());
            cpuNanos.addAndGet(taskEnd.taskMetrics().executorCpuTime());
        }
    }
}
