package dev.ferry.examples.bench.shuffle;

import java.util.Locale;

import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.apache.spark.scheduler.StageInfo;

/**
 * With {@code --verbose}: one line per completed stage (tasks, wall time, summed task run and CPU
 * time, shuffle bytes), to see where a query's time goes and whether its tasks ran in parallel.
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
        System.out.printf(Locale.ROOT, "  stage %d (%s): %d tasks, %d ms wall, %d ms task run, %d ms task cpu, shuffle write %,d B, read %,d B%n", info.stageId(),
                info.name().replaceAll(" at .*", ""), info.numTasks(), wall, info.taskMetrics().executorRunTime(), info.taskMetrics().executorCpuTime() / 1_000_000,
                info.taskMetrics().shuffleWriteMetrics().bytesWritten(), info.taskMetrics().shuffleReadMetrics().totalBytesRead());
    }
}
