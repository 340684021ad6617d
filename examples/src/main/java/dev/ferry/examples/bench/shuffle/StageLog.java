package dev.ferry.examples.bench.shuffle;

import java.util.Locale;

import org.apache.spark.executor.TaskMetrics;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.apache.spark.scheduler.StageInfo;

/**
 * With {@code --verbose}: one line per completed stage (tasks, wall time, summed task run, CPU and
 * GC time, shuffle bytes and records, spills, peak execution memory), to see where a query's time
 * goes, whether its tasks ran in parallel, and what of a task's run time was not its own CPU.
 */
public final class StageLog
        extends SparkListener
{
    @Override
    public void onStageCompleted(SparkListenerStageCompleted completed)
    {
        StageInfo info = completed.stageInfo();
        long wall = info.completionTime().isDefined() && info.submissionTime().isDefined()
                ? (Long) info.completionTime().get() - (Long) info.submissionTime().get() : -1;
        TaskMetrics metrics = info.taskMetrics();
        System.out.printf(Locale.ROOT, "  stage %d (%s): %d tasks, %d ms wall, %d ms task run, %d ms task cpu, %d ms gc, shuffle write %,d B / %,d rec, read %,d B / %,d rec "
                        + "(%,d blocks, %d ms fetch wait), spilled %,d B, peak exec mem %,d B%n",
                info.stageId(), info.name().replaceAll(" at .*", ""), info.numTasks(), wall, metrics.executorRunTime(), metrics.executorCpuTime() / 1_000_000, metrics.jvmGCTime(),
                metrics.shuffleWriteMetrics().bytesWritten(), metrics.shuffleWriteMetrics().recordsWritten(), metrics.shuffleReadMetrics().totalBytesRead(),
                metrics.shuffleReadMetrics().recordsRead(), metrics.shuffleReadMetrics().totalBlocksFetched(), metrics.shuffleReadMetrics().fetchWaitTime(),
                metrics.memoryBytesSpilled(), metrics.peakExecutionMemory());
    }
}
