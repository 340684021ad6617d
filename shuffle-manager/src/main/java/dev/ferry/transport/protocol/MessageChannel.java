package dev.ferry.transport.protocol;

import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;

/** A connection that carries whole messages, in order, both ways. */
public interface MessageChannel
        extends Closeable
{
    /** The peer, for messages: "host:port" or an executor id. */
    String peer();

    void send(Message message)
            throws IOException;

    /** The next message; an {@link IOException} when none arrives within {@code timeout} or the peer closed. */
    Message receive(Duration timeout)
            throws IOException;
}
