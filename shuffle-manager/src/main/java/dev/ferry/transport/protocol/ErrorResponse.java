package dev.ferry.transport.protocol;

import java.nio.ByteBuffer;

import static java.util.Objects.requireNonNull;

/**
 * A request failed on the serving side (unknown block, not registered, authentication refused).
 * Request id 0 answers no particular request. Wire: long requestId, string error.
 */
public record ErrorResponse(long requestId, String error)
        implements Message
{
    public ErrorResponse
    {
        requireNonNull(error, "error is null");
    }

    @Override
    public MessageType type()
    {
        return MessageType.ERROR_RESPONSE;
    }

    @Override
    public int encodedLength()
    {
        return 8 + Encoding.encodedLength(error);
    }

    @Override
    public void encode(ByteBuffer buffer)
    {
        buffer.putLong(requestId);
        Encoding.writeString(buffer, error);
    }

    public static ErrorResponse decode(ByteBuffer buffer)
    {
        Encoding.need(buffer, 8, "request id");
        long requestId = buffer.getLong();
        return new ErrorResponse(requestId, Encoding.readString(buffer));
    }
}
