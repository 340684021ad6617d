package dev.ferry.repartition;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.shuffle.DeviceReads;
import dev.ferry.shuffle.FerryShuffleManager;
import dev.ferry.shuffle.FerryShuffleRuntime;
import org.apache.spark.SparkEnv;
import org.apache.spark.shuffle.ShuffleManager;

/** This executor's Ferry shuffle runtime and its device store and routes, which a repartition's tasks need. */
final class ExecutorDeviceReads
{
    private ExecutorDeviceReads() {}

    static FerryShuffleRuntime runtime()
    {
        ShuffleManager manager = SparkEnv.get().shuffleManager();
        if (!(manager instanceof FerryShuffleManager ferry)) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Repartitioning device batches needs spark.shuffle.manager=" + FerryShuffleManager.class.getName()
                    + "; executor " + SparkEnv.get().executorId() + " runs " + (manager == null ? "none" : manager.getClass().getName()));
        }
        return ferry.startedRuntime();
    }

    static DeviceReads deviceReads(FerryShuffleRuntime runtime)
    {
        return runtime.deviceReads().orElseThrow(() -> new FerryException(ErrorCategory.USER_ERROR, "Repartitioning device batches keeps map outputs in the executor's device store "
                + "and routes them by the topology: executor " + runtime.executorId() + " has " + runtime.store().name()
                + " (needs spark.ferry.shuffle.stage=device, a device runtime with a GPU, and a topology: spark.ferry.topology.file or probed routes)"));
    }
}
