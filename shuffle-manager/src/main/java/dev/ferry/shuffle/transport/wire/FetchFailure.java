package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static java.util.Objects.requireNonNull;

/** The server could not serve block {@code index} of a request (missing, unreadable); the message says why. */
public record FetchFailure(long requestId, int index, String message)
        implements Message
{
    public FetchFailure
    {
        requireNonNull(message, "message is null");
    }

    @Override
    public MessageType type()
    {
        return MessageType.FETCH_FAILURE;
    }

    @Override
    public int encodedLength()
    {
        return Long.BYTES + Integer.BYTES + Integer.BYTES + message.getBytes(StandardCharsets.UTF_8).length;
    }

    @Override
    public void encode(ByteBuffer target)
    {
        byte[] text = message.getBytes(StandardCharsets.UTF_8);
        target.putLong(requestId);
        target.putInt(index);
        target.putInt(text.length);
        target.put(text);
    }

    public static FetchFailure decode(ByteBuffer source)
    {
        long requestId = source.getLong();
        int index = source.getInt();
        int length = source.getInt();
        if (length < 0 || length != source.remaining()) {
            throw new IllegalArgumentException("Fetch failure claims a " + length + "-byte message in " + source.remaining() + " bytes");
        }
        byte[] text = new byte[length];
        source.get(text);
        return new FetchFailure(requestId, index, new String(text, StandardCharsets.UTF_8));
    }
}
