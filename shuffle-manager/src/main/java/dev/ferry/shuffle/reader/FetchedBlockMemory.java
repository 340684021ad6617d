package dev.ferry.shuffle.reader;

import dev.ferry.shuffle.ShuffleConfigKeys;
import dev.ferry.shuffle.format.SparkMemoryGrants;
import org.apache.spark.memory.MemoryConsumer;
import org.apache.spark.memory.MemoryMode;
import org.apache.spark.memory.TaskMemoryManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reduce task's fetched blocks as a consumer of the task's off-heap execution memory, registered
 * when Spark's memory is off-heap ({@code spark.memory.offHeap.enabled}): the blocks are Arrow
 * (off-heap) memory, so they count there. A consumer of the task short of memory makes it give back
 * the blocks fetched and not yet decoded; they are fetched again when their turn comes. With
 * on-heap memory they are bounded by {@link ShuffleConfigKeys#TASK_ARROW_LIMIT_BYTES} instead.
 */
final class FetchedBlockMemory
        extends SparkMemoryGrants
{
    private static final Logger LOG = LoggerFactory.getLogger(FetchedBlockMemory.class);

    private final ColumnarBlockIterator blocks;

    FetchedBlockMemory(TaskMemoryManager memoryManager, ColumnarBlockIterator blocks)
    {
        super(memoryManager, MemoryMode.OFF_HEAP);
        this.blocks = blocks;
    }

    @Override
    public long spill(long size, MemoryConsumer trigger)
    {
        if (trigger == this) {
            // Our own request, made right after a fetch: dropping what was just fetched would only fetch it again.
            return 0;
        }
        long freed = blocks.releaseQueued();
        if (freed > 0) {
            LOG.info("Ferry shuffle reader gave back {} bytes of fetched blocks for {} (they will be fetched again)", freed, trigger);
        }
        return freed;
    }
}
