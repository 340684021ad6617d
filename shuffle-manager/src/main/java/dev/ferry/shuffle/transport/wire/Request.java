package dev.ferry.shuffle.transport.wire;

/**
 * What a reader sends a block server after the handshake; the server's connection handler answers
 * each kind in one switch over {@link #kind}.
 */
public sealed interface Request
        extends Message
        permits FetchRequest, FetchDone, RdmaAdmissionRequest
{
    /** The request's kind, for the server's one dispatch (Java 17 has no pattern switch over sealed types). */
    default MessageType kind()
    {
        return type();
    }
}
