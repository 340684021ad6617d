package dev.ferry.transport.protocol;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Asks a serving executor where the given blocks are registered, so the reader can READ them
 * itself (the SparkRDMA flow, with the location table served on request instead of written into
 * the driver). Answered by {@link BlockLocationsResponse} or {@link ErrorResponse} with the same
 * request id. Wire: long requestId, int count, blocks (16 each).
 */
public record BlockLocationsRequest(long requestId, List<ShuffleBlockRef> blocks)
        implements Message
{
    public BlockLocationsRequest
    {
        blocks = List.copyOf(requireNonNull(blocks, "blocks is null"));
        if (blocks.isEmpty()) {
            throw new IllegalArgumentException("A block locations request names at least one block");
        }
    }

    @Override
    public MessageType type()
    {
        return MessageType.BLOCK_LOCATIONS_REQUEST;
    }

    @Override
    public int encodedLength()
    {
        return 8 + 4 + blocks.size() * ShuffleBlockRef.ENCODED_LENGTH;
    }

    @Override
    public void encode(ByteBuffer buffer)
    {
        buffer.putLong(requestId);
        buffer.putInt(blocks.size());
        for (ShuffleBlockRef block : blocks) {
            block.encode(buffer);
        }
    }

    public static BlockLocationsRequest decode(ByteBuffer buffer)
    {
        Encoding.need(buffer, 8, "request id");
        long requestId = buffer.getLong();
        int count = Encoding.readCount(buffer, ShuffleBlockRef.ENCODED_LENGTH, "block count");
        List<ShuffleBlockRef> blocks = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            blocks.add(ShuffleBlockRef.decode(buffer));
        }
        return new BlockLocationsRequest(requestId, blocks);
    }
}
