package dev.ferry.shuffle.format;

/**
 * Memory a shuffle task's buffers take, as Spark's memory manager grants it: the map side's
 * serialized payloads (asked for before the encoder keeps more, given back when it spills) and the
 * reduce side's fetched blocks. Implemented over a Spark {@code MemoryConsumer} of the task by
 * {@link SparkMemoryGrants}, so an operator of the same task short of memory can make Ferry give
 * memory back.
 */
public interface MemoryGrants
{
    /** Asks for {@code bytes} more; returns the bytes granted, possibly fewer. */
    long acquire(long bytes);

    void release(long bytes);

    /** No limit and no accounting (tests, and callers outside a Spark task). */
    MemoryGrants UNLIMITED = new MemoryGrants()
    {
        @Override
        public long acquire(long bytes)
        {
            return bytes;
        }

        @Override
        public void release(long bytes) {}
    };
}
