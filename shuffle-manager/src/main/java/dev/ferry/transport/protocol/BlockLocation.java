package dev.ferry.transport.protocol;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Where a block lives on the serving executor and how to READ it: the device it is on
 * ({@link #HOST} for host memory), its length, and its segments in order, whose lengths add up to
 * the block's. Wire: block (16), int device, long length, int count, segments (16 each).
 */
public record BlockLocation(ShuffleBlockRef block, int device, long length, List<BlockSegment> segments)
        implements Encodable
{
    public static final int HOST = -1;

    public BlockLocation
    {
        requireNonNull(block, "block is null");
        segments = List.copyOf(requireNonNull(segments, "segments is null"));
        if (device < HOST) {
            throw new IllegalArgumentException("Malformed device " + device + " for " + block);
        }
        long total = 0;
        for (BlockSegment segment : segments) {
            total += segment.length();
        }
        if (segments.isEmpty() || total != length) {
            throw new IllegalArgumentException("Segments of " + block + " cover " + total + " bytes, the block has " + length);
        }
    }

    @Override
    public int encodedLength()
    {
        return ShuffleBlockRef.ENCODED_LENGTH + 4 + 8 + 4 + segments.size() * BlockSegment.ENCODED_LENGTH;
    }

    @Override
    public void encode(ByteBuffer buffer)
    {
        block.encode(buffer);
        buffer.putInt(device);
        buffer.putLong(length);
        buffer.putInt(segments.size());
        for (BlockSegment segment : segments) {
            segment.encode(buffer);
        }
    }

    public static BlockLocation decode(ByteBuffer buffer)
    {
        ShuffleBlockRef block = ShuffleBlockRef.decode(buffer);
        Encoding.need(buffer, 12, "block location");
        int device = buffer.getInt();
        long length = buffer.getLong();
        int count = Encoding.readCount(buffer, BlockSegment.ENCODED_LENGTH, "segment count");
        List<BlockSegment> segments = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            segments.add(BlockSegment.decode(buffer));
        }
        return new BlockLocation(block, device, length, segments);
    }
}
