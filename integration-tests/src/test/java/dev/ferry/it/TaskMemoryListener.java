package dev.ferry.it;

import java.util.concurrent.atomic.AtomicLong;

import org.apache.spark.executor.TaskMetrics;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;

/**
 * What the tasks of a run took and gave back, from the task metrics executors report: the
 * largest peak execution memory of one task (Spark's consumers plus what Ferry reports for its
 * Arrow memory), and the bytes spilled from memory and to disk, summed. {@link #reset} between runs.
 */
final class TaskMemoryListener
        extends SparkListener
{
    private final AtomicLong maxPeakExecutionMemory = new AtomicLong();
    private final AtomicLong memoryBytesSpilled = new AtomicLong();
    private final AtomicLong diskBytesSpilled = new AtomicLong();
    private final AtomicLong tasks = new AtomicLong();
    private final AtomicLong failedTasks = new AtomicLong();

    @Override
    public void onTaskEnd(SparkListenerTaskEnd taskEnd)
    {
        tasks.incrementAndGet();
        if (!taskEnd.taskInfo().successful()) {
            failedTasks.incrementAndGet();
        }
        TaskMetrics metrics = taskEnd.taskMetrics();
        if (metrics == null) {
            return;
        }
        maxPeakExecutionMemory.accumulateAndGet(metrics.peakExecutionMemory(), Math::max);
        memoryBytesSpilled.addAndGet(metrics.memoryBytesSpilled());
        diskBytesSpilled.addAndGet(metrics.diskBytesSpilled());
    }

    void reset()
    {
        maxPeakExecutionMemory.set(0);
        memoryBytesSpilled.set(0);
        diskBytesSpilled.set(0);
        tasks.set(0);
        failedTasks.set(0);
    }

    long maxPeakExecutionMemory()
    {
        return maxPeakExecutionMemory.get();
    }

    long memoryBytesSpilled()
    {
        return memoryBytesSpilled.get();
    }

    long diskBytesSpilled()
    {
        return diskBytesSpilled.get();
    }

    long failedTasks()
    {
        return failedTasks.get();
    }

    @Override
    public String toString()
    {
        return String.format("%d tasks (%d failed), max task peak execution memory %,d B, spilled %,d B from memory, %,d B to disk",
                tasks.get(), failedTasks.get(), maxPeakExecutionMemory.get(), memoryBytesSpilled.get(), diskBytesSpilled.get());
    }
}
