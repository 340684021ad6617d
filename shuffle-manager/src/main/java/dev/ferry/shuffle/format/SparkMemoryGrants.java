package dev.ferry.shuffle.format;

import org.apache.spark.memory.MemoryConsumer;
import org.apache.spark.memory.MemoryMode;
import org.apache.spark.memory.TaskMemoryManager;

/** {@link MemoryGrants} as a consumer of the task's execution memory; subclasses say what {@code spill} gives back. */
public abstract class SparkMemoryGrants
        extends MemoryConsumer
        implements MemoryGrants
{
    protected SparkMemoryGrants(TaskMemoryManager memoryManager, MemoryMode mode)
    {
        super(memoryManager, mode);
    }

    @Override
    public final long acquire(long bytes)
    {
        return acquireMemory(bytes);
    }

    @Override
    public final void release(long bytes)
    {
        if (bytes > 0) {
            freeMemory(bytes);
        }
    }
}
