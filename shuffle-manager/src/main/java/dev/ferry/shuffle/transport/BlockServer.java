package dev.ferry.shuffle.transport;

/** The serving half of a transport: answers other executors' fetches from a {@link BlockSource}. */
public interface BlockServer
        extends AutoCloseable
{
    int port();

    @Override
    void close();
}
