package dev.ferry.transport.protocol;

import java.nio.ByteBuffer;

/**
 * Where one piece of a block can be READ: the address the serving NIC knows it by, its length and
 * the rkey that covers it. A block inside one registered region has one segment; one that spans
 * regions (registrations are chunked below 2 GiB) has one per region. Wire: long, int, int.
 */
public record BlockSegment(long address, int length, int rkey)
        implements Encodable
{
    public static final int ENCODED_LENGTH = 16;

    public BlockSegment
    {
        if (length <= 0) {
            throw new IllegalArgumentException("Segment length must be positive, got " + length);
        }
    }

    @Override
    public int encodedLength()
    {
        return ENCODED_LENGTH;
    }

    @Override
    public void encode(ByteBuffer buffer)
    {
        buffer.putLong(address);
        buffer.putInt(length);
        buffer.putInt(rkey);
    }

    public static BlockSegment decode(ByteBuffer buffer)
    {
        Encoding.need(buffer, ENCODED_LENGTH, "segment");
        return new BlockSegment(buffer.getLong(), buffer.getInt(), buffer.getInt());
    }

    @Override
    public String toString()
    {
        return "[0x" + Long.toHexString(address) + ", +" + length + ") rkey 0x" + Integer.toHexString(rkey);
    }
}
