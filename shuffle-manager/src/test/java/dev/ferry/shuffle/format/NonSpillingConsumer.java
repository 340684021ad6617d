package dev.ferry.shuffle.format;

import org.apache.spark.memory.MemoryConsumer;
import org.apache.spark.memory.MemoryMode;
import org.apache.spark.memory.TaskMemoryManager;

/** A consumer of a task's execution memory that cannot spill, like a hash join's build side: it only takes. */
public final class NonSpillingConsumer
        extends MemoryConsumer
{
    public NonSpillingConsumer(TaskMemoryManager task, MemoryMode mode)
    {
        super(task, mode);
    }

    @Override
    public long spill(long size, MemoryConsumer trigger)
    {
        return 0;
    }
}
