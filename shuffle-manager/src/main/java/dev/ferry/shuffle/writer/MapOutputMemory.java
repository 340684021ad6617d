package dev.ferry.shuffle.writer;

import java.io.IOException;

import dev.ferry.shuffle.format.MapOutputEncoder;
import dev.ferry.shuffle.format.SparkMemoryGrants;
import org.apache.spark.memory.MemoryConsumer;
import org.apache.spark.memory.MemoryMode;
import org.apache.spark.memory.TaskMemoryManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A map task's serialized payloads as a consumer of the task's execution memory (on-heap: that is
 * where the payloads are until commit). The encoder asks it before keeping more; any consumer of
 * the task that is short of memory can make it spill, which moves every payload to the task's
 * spill file and gives the memory back, as Spark's own sort shuffle does with its pages.
 */
final class MapOutputMemory
        extends SparkMemoryGrants
{
    private static final Logger LOG = LoggerFactory.getLogger(MapOutputMemory.class);

    private MapOutputEncoder encoder;

    MapOutputMemory(TaskMemoryManager memoryManager)
    {
        super(memoryManager, MemoryMode.ON_HEAP);
    }

    /** The encoder whose payloads this accounts; set once, right after the encoder is made. */
    void attach(MapOutputEncoder encoder)
    {
        this.encoder = encoder;
    }

    @Override
    public long spill(long size, MemoryConsumer trigger)
            throws IOException
    {
        if (encoder == null) {
            return 0;
        }
        long freed = encoder.spill();
        if (freed > 0) {
            LOG.info("Ferry map output spilled {} bytes of payload to disk for {} ({} spills so far)", freed, trigger == this ? "its own growth" : trigger, encoder.spills());
        }
        return freed;
    }
}
