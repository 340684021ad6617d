package dev.ferry.transport.protocol;

/** A control message of the one-sided READ protocol or of authentication. */
public interface Message
        extends Encodable
{
    MessageType type();
}
