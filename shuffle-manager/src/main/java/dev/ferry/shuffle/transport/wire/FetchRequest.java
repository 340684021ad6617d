package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import dev.ferry.shuffle.transport.ShuffleBlockRef;

/** Asks for blocks of one shuffle; the server answers one {@link BlockResponse} or {@link FetchFailure} per block, in order. */
public record FetchRequest(long requestId, int shuffleId, List<Block> blocks)
        implements Message
{
    private static final int BLOCK_BYTES = Long.BYTES + Integer.BYTES;

    public FetchRequest
    {
        blocks = List.copyOf(blocks);
    }

    public static FetchRequest of(long requestId, List<ShuffleBlockRef> refs)
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
        return new FetchRequest(requestId, shuffleId, blocks);
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
        return Long.BYTES + Integer.BYTES + Integer.BYTES + blocks.size() * BLOCK_BYTES;
    }

    @Override
    public void encode(ByteBuffer target)
    {
        target.putLong(requestId);
        target.putInt(shuffleId);
        target.putInt(blocks.size());
        for (Block block : blocks) {
            target.putLong(block.mapId());
            target.putInt(block.reduceId());
        }
    }

    public static FetchRequest decode(ByteBuffer source)
    {
        long requestId = source.getLong();
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
        return new FetchRequest(requestId, shuffleId, blocks);
    }

    public record Block(long mapId, int reduceId)
    {
    }
}
