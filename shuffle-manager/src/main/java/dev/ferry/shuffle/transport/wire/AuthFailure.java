package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;

import static java.util.Objects.requireNonNull;

/**
 * Authentication failed on the side that sends it (wrong proof, unknown application); the peer
 * then fails with the reason instead of waiting for a message that will not come. Wire: string reason.
 */
public record AuthFailure(String reason)
        implements Message
{
    public AuthFailure
    {
        requireNonNull(reason, "reason is null");
    }

    @Override
    public MessageType type()
    {
        return MessageType.AUTH_FAILURE;
    }

    @Override
    public int encodedLength()
    {
        return Encoding.encodedLength(reason);
    }

    @Override
    public void encode(ByteBuffer target)
    {
        Encoding.writeString(target, reason);
    }

    public static AuthFailure decode(ByteBuffer source)
    {
        return new AuthFailure(Encoding.readString(source));
    }
}
