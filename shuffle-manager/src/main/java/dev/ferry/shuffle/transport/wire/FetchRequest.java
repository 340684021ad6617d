package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import dev.ferry.shuffle.transport.ShuffleBlockRef;

import static java.util.Objects.requireNonNull;

/**
 * Asks for blocks of one shuffle, answered on {@code route}: one {@link BlockResponse},
 * {@link BlockLocation} or {@link FetchFailure} per block, in order. What the server holds for a
 * request (published files, registrations, lent GPU buffers) is released when the reader says it is
 * done ({@link FetchDone}), sends its next request, or the connection closes.
 * Wire: long requestId, byte route, int shuffleId, int count, then count times (long mapId, int reduceId).
 */
public record FetchRequest(long requestId, FetchRoute route, int shuffleId, List<Block> blocks)
        implements Request
{
    private static final int BLOCK_BYTES = Long.BYTES + Integer.BYTES;
    private static final int FIXED_BYTES = Long.BYTES + 1 + Integer.BYTES + Integer.BYTES;

    public FetchRequest
    {
        requireNonNull(route, "route is null");
        blocks = List.copyOf(blocks);
        if (blocks.isEmpty()) {
            throw new IllegalArgumentException("A fetch request needs at least one block");
        }
    }

    public static FetchRequest of(long requestId, FetchRoute route, List<ShuffleBlockRef> refs)
    {
        if (refs.isEmpty()) {
            throw new IllegalArgumentException("A fetch request needs at least one block");
        }
        int shuffleId = refs.get(0).shuffleId();
        List<Block> blocks = new ArrayList<>(refs.size());
        for (ShuffleBlockRef ref : refs) {
            if (ref.shuffleId() != shuffleId) {
                throw new IllegalArgumentException("One request fetches one shuffle: " + shuffleId + " and " + ref.shuffleId());
            }
            blocks.add(new Block(ref.mapId(), ref.reduceId()));
        }
        return new FetchRequest(requestId, route, shuffleId, blocks);
    }

    public ShuffleBlockRef ref(int index)
    {
        Block block = blocks.get(index);
        return new ShuffleBlockRef(shuffleId, block.mapId(), block.reduceId());
    }

    @Override
    public MessageType type()
    {
        return MessageType.FETCH_REQUEST;
    }

    @Override
    public int encodedLength()
    {
        return FIXED_BYTES + blocks.size() * BLOCK_BYTES;
    }

    @Override
    public void encode(ByteBuffer target)
    {
        target.putLong(requestId);
        target.put(route.id());
        target.putInt(shuffleId);
        target.putInt(blocks.size());
        for (Block block : blocks) {
            target.putLong(block.mapId());
            target.putInt(block.reduceId());
        }
    }

    public static FetchRequest decode(ByteBuffer source)
    {
        Encoding.need(source, FIXED_BYTES, "fetch request header");
        long requestId = source.getLong();
        FetchRoute route = FetchRoute.fromId(source.get());
        int shuffleId = source.getInt();
        int count = source.getInt();
        // The count comes off the wire: check it against the bytes actually there before allocating.
        if (count <= 0 || (long) count * BLOCK_BYTES != source.remaining()) {
            throw new IllegalArgumentException("Fetch request claims " + count + " blocks in " + source.remaining() + " bytes");
        }
        List<Block> blocks = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            blocks.add(new Block(source.getLong(), source.getInt()));
        }
        return new FetchRequest(requestId, route, shuffleId, blocks);
    }

    public record Block(long mapId, int reduceId)
    {
    }
}
