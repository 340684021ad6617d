package dev.ferry.shuffle.format;

/**
 * The heap a map task's serialized payloads may take, as Spark's memory manager grants it: the
 * encoder asks before it keeps more and gives back what it spills. The writer's implementation is
 * a Spark {@code MemoryConsumer} of the task, so an operator of the same task short of memory can
 * make the encoder spill.
 */
public interface PayloadMemory
{
    /** Asks for {@code bytes} more; returns the bytes granted, possibly fewer (then the encoder spills). */
    long acquire(long bytes);

    void release(long bytes);

    /** No limit (tests and callers outside a Spark task). */
    PayloadMemory UNLIMITED = new PayloadMemory()
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
