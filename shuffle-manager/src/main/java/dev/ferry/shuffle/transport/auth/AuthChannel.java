package dev.ferry.shuffle.transport.auth;

import java.io.IOException;
import java.time.Duration;

import dev.ferry.shuffle.transport.wire.Message;

/**
 * What {@link AuthBootstrap} needs of a connection: whole messages of the shuffle wire protocol,
 * in order, both ways. The handshake runs on the very connection the shuffle then uses, so it
 * speaks that protocol's {@code Auth*} messages rather than a protocol of its own.
 */
public interface AuthChannel
{
    /** The peer, for messages: "host:port". */
    String peer();

    void send(Message message)
            throws IOException;

    /** The next message; an {@link IOException} when none arrives within {@code timeout} or the peer closed. */
    Message receive(Duration timeout)
            throws IOException;
}
