package dev.ferry.device.host;

import dev.ferry.device.spi.BackendEvent;

/**
 * An event of a stream that runs its work at submission: it is complete when recorded, and the
 * time between two events is wall-clock time.
 */
public final class InstantEvent
        implements BackendEvent
{
    private final long nanos = System.nanoTime();

    @Override
    public boolean isComplete()
    {
        return true;
    }

    @Override
    public void synchronize() {}

    @Override
    public double millisSince(BackendEvent earlier)
    {
        if (!(earlier instanceof InstantEvent)) {
            throw new IllegalArgumentException("Cannot time against an event of another backend");
        }
        return (nanos - ((InstantEvent) earlier).nanos) / 1e6;
    }

    @Override
    public void close() {}
}
