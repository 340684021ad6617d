package dev.ferry.transport.protocol;

import java.nio.ByteBuffer;

/** A shuffle block as Spark names it ({@code ShuffleBlockId}): shuffle, map task and reduce partition. Wire: int, long, int. */
public record ShuffleBlockRef(int shuffleId, long mapId, int reduceId)
        implements Encodable
{
    public static final int ENCODED_LENGTH = 16;

    public ShuffleBlockRef
    {
        if (shuffleId < 0 || mapId < 0 || reduceId < 0) {
            throw new IllegalArgumentException("Malformed block shuffle_" + shuffleId + "_" + mapId + "_" + reduceId);
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
        buffer.putInt(shuffleId);
        buffer.putLong(mapId);
        buffer.putInt(reduceId);
    }

    public static ShuffleBlockRef decode(ByteBuffer buffer)
    {
        Encoding.need(buffer, ENCODED_LENGTH, "block id");
        return new ShuffleBlockRef(buffer.getInt(), buffer.getLong(), buffer.getInt());
    }

    @Override
    public String toString()
    {
        return "shuffle_" + shuffleId + "_" + mapId + "_" + reduceId;
    }
}
