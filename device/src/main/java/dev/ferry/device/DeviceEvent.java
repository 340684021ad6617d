package dev.ferry.device;

import dev.ferry.device.spi.BackendEvent;

import java.util.concurrent.atomic.AtomicBoolean;

import static java.util.Objects.requireNonNull;

/** A point in a {@link DeviceStream}'s work: wait for it, or time the work between two events. */
public final class DeviceEvent
        implements AutoCloseable
{
    private final BackendEvent event;
    private final AtomicBoolean closed = new AtomicBoolean();

    DeviceEvent(BackendEvent event)
    {
        this.event = requireNonNull(event, "event is null");
    }

    BackendEvent backendEvent()
    {
        checkOpen();
        return event;
    }

    public boolean isComplete()
    {
        checkOpen();
        return event.isComplete();
    }

    public void synchronize()
    {
        checkOpen();
        event.synchronize();
    }

    /** Milliseconds from {@code earlier} to this event; both must have completed. */
    public double millisSince(DeviceEvent earlier)
    {
        checkOpen();
        return event.millisSince(earlier.backendEvent());
    }

    private void checkOpen()
    {
        if (closed.get()) {
            throw new IllegalStateException("Use after close: device event was already closed");
        }
    }

    @Override
    public void close()
    {
        if (closed.compareAndSet(false, true)) {
            event.close();
        }
    }
}
