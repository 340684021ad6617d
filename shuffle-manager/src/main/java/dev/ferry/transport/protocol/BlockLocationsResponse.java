package dev.ferry.transport.protocol;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The locations of the requested blocks, in request order: address, length and rkey per
 * segment. Wire: long requestId, int count, locations.
 */
public record BlockLocationsResponse(long requestId, List<BlockLocation> locations)
        implements Message
{
    /** The smallest encoded location: a block, device, length, a count and one segment. */
    private static final int MIN_LOCATION_BYTES = ShuffleBlockRef.ENCODED_LENGTH + 4 + 8 + 4 + BlockSegment.ENCODED_LENGTH;

    public BlockLocationsResponse
    {
        locations = List.copyOf(requireNonNull(locations, "locations is null"));
    }

    @Override
    public MessageType type()
    {
        return MessageType.BLOCK_LOCATIONS_RESPONSE;
    }

    @Override
    public int encodedLength()
    {
        int length = 8 + 4;
        for (BlockLocation location : locations) {
            length += location.encodedLength();
        }
        return length;
    }

    @Override
    public void encode(ByteBuffer buffer)
    {
        buffer.putLong(requestId);
        buffer.putInt(locations.size());
        for (BlockLocation location : locations) {
            location.encode(buffer);
        }
    }

    public static BlockLocationsResponse decode(ByteBuffer buffer)
    {
        Encoding.need(buffer, 8, "request id");
        long requestId = buffer.getLong();
        int count = Encoding.readCount(buffer, MIN_LOCATION_BYTES, "location count");
        List<BlockLocation> locations = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            locations.add(BlockLocation.decode(buffer));
        }
        return new BlockLocationsResponse(requestId, locations);
    }
}
