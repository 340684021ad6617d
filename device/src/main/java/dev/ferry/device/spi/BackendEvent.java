package dev.ferry.device.spi;

/** A backend's marker in a stream's order of work (cudaEvent_t). */
public interface BackendEvent
        extends AutoCloseable
{
    boolean isComplete();

    void synchronize();

    /** Milliseconds between {@code earlier} and this event, both completed. */
    double millisSince(BackendEvent earlier);

    @Override
    void close();
}
