package dev.ferry.gds.decode;

import org.apache.parquet.column.Encoding;

import java.nio.ByteBuffer;

/**
 * The DELTA_BINARY_PACKED headers of a page's values, checked before parquet-mr's readers size their
 * value and bit-width arrays from them: every delta encoding starts with one such stream
 * (DELTA_BYTE_ARRAY's prefix lengths, DELTA_LENGTH_BYTE_ARRAY's lengths), and DELTA_BYTE_ARRAY's
 * suffixes start with a second, found by skipping the first stream's blocks (block and mini-block
 * headers only). A header may claim no more values than the page and no more decoded longs than the
 * page bound allows.
 */
final class DeltaHeaders
{
    private DeltaHeaders() {}

    /** Checks the delta headers of a values section of {@code encoding} at {@code data}'s position (which moves). */
    static void check(Encoding encoding, ByteBuffer data, int values, long maxPageBytes)
    {
        long[] header = header(data, values, maxPageBytes);
        if (encoding == Encoding.DELTA_BYTE_ARRAY) {
            skipBlocks(data, header);
            header(data, values, maxPageBytes);
        }
    }

    /**
     * Reads and checks one DELTA_BINARY_PACKED header at {@code data}'s position (which moves past it):
     * {block size, mini blocks, total values, first value (zigzag-decoded)}.
     */
    static long[] header(ByteBuffer data, int values, long maxPageBytes)
    {
        long blockSize = varint(data);
        long miniBlocks = varint(data);
        long total = varint(data);
        long zigzag = varint(data);
        if (blockSize <= 0 || blockSize % 128 != 0 || miniBlocks <= 0 || blockSize % miniBlocks != 0 || (blockSize / miniBlocks) % 32 != 0) {
            throw new IllegalStateException("a DELTA_BINARY_PACKED header with blocks of " + blockSize + " values in " + miniBlocks + " mini blocks");
        }
        if (total < 0 || total > values) {
            throw new IllegalStateException("a DELTA_BINARY_PACKED header claims " + total + " values in a page of " + values);
        }
        // Compared by division: a block size near 2^63 would overflow the product.
        if (blockSize > maxPageBytes / Long.BYTES || total > maxPageBytes / Long.BYTES - blockSize) {
            throw new IllegalStateException("a DELTA_BINARY_PACKED header with blocks of " + blockSize + " values decodes past the page bound of "
                    + maxPageBytes + " bytes");
        }
        return new long[] {blockSize, miniBlocks, total, (zigzag >>> 1) ^ -(zigzag & 1)};
    }

    // The blocks after a header hold total - 1 deltas; each block a min delta, one bit width per mini block, then the used mini blocks.
    private static void skipBlocks(ByteBuffer data, long[] header)
    {
        long miniBlocks = header[1];
        long miniBlockValues = header[0] / miniBlocks;
        long left = header[2] - 1;
        while (left > 0) {
            varint(data);
            if (data.remaining() < miniBlocks) {
                throw new IllegalStateException("a DELTA_BINARY_PACKED block's bit widths are cut off");
            }
            int widths = data.position();
            data.position(widths + (int) miniBlocks);
            for (int index = 0; index < miniBlocks && left > 0; index++) {
                long bytes = (data.get(widths + index) & 0xFF) * miniBlockValues / 8;
                if (bytes > data.remaining()) {
                    throw new IllegalStateException("a DELTA_BINARY_PACKED mini block runs past the page");
                }
                data.position(data.position() + (int) bytes);
                left -= miniBlockValues;
            }
        }
    }

    /** One ULEB128 varint of at most 10 bytes at {@code data}'s position (which moves past it). */
    static long varint(ByteBuffer data)
    {
        long value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (!data.hasRemaining()) {
                throw new IllegalStateException("a DELTA_BINARY_PACKED header is cut off");
            }
            int next = data.get() & 0xFF;
            value |= (long) (next & 0x7F) << shift;
            if ((next & 0x80) == 0) {
                return value;
            }
        }
        throw new IllegalStateException("a DELTA_BINARY_PACKED varint longer than 10 bytes");
    }
}
