package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;

/** The header of one served block: which request and which of its blocks; {@code bodyLength} block bytes follow in the same frame. */
public record BlockResponse(long requestId, int index, long bodyLength)
        implements Message
{
    public static final int HEADER_BYTES = Long.BYTES + Integer.BYTES + Long.BYTES;

    public BlockResponse
    {
        if (index < 0 || bodyLength < 0) {
            throw new IllegalArgumentException("Invalid block response: index " + index + ", body " + bodyLength);
        }
    }

    @Override
    public MessageType type()
    {
        return MessageType.BLOCK_RESPONSE;
    }

    @Override
    public int encodedLength()
    {
        return HEADER_BYTES;
    }

    @Override
    public void encode(ByteBuffer target)
    {
        target.putLong(requestId);
        target.putInt(index);
        target.putLong(bodyLength);
    }

    public static BlockResponse decode(ByteBuffer source)
    {
        return new BlockResponse(source.getLong(), source.getInt(), source.getLong());
    }
}
