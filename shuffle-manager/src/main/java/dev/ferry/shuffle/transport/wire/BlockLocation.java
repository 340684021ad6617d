package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;

import static java.util.Objects.requireNonNull;

/**
 * Where block {@code index} of a request can be taken: in shared memory ({@link ShmLocation}), in
 * a GPU buffer exported over CUDA IPC ({@link IpcLocation}) or in memory registered with the
 * server's NIC ({@link RemoteSlices}). The location's kind also says where the peer actually holds
 * the block, so a reader counts the route that carried it. Wire: long requestId, int index, byte
 * kind, the kind's fields.
 */
public record BlockLocation(long requestId, int index, Location location)
        implements Message
{
    public BlockLocation
    {
        requireNonNull(location, "location is null");
        if (index < 0) {
            throw new IllegalArgumentException("Invalid block location: index " + index);
        }
    }

    @Override
    public MessageType type()
    {
        return MessageType.BLOCK_LOCATION;
    }

    @Override
    public int encodedLength()
    {
        return Long.BYTES + Integer.BYTES + 1 + location.encodedLength();
    }

    @Override
    public void encode(ByteBuffer target)
    {
        target.putLong(requestId);
        target.putInt(index);
        target.put(location.kind().id());
        location.encode(target);
    }

    public static BlockLocation decode(ByteBuffer source)
    {
        Encoding.need(source, Long.BYTES + Integer.BYTES, "block location header");
        long requestId = source.getLong();
        int index = source.getInt();
        return new BlockLocation(requestId, index, Location.decode(source));
    }
}
