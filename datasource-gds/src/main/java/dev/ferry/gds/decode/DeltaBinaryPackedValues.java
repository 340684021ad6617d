package dev.ferry.gds.decode;

import java.nio.ByteBuffer;

import static dev.ferry.gds.decode.FlatBytes.LITTLE_ENDIAN_LONGS;

/**
 * Decodes a DELTA_BINARY_PACKED values section (INT32 or INT64) in bulk into a {@code long[]}, a
 * mini block at a time, instead of parquet-mr's reader's call per value. The header is read and
 * checked by {@link DeltaHeaders#header}; then each block's zigzag min delta and one bit width per
 * mini block, and each needed mini block's deltas (widths 0..64) unpacked from little-endian bit
 * order and prefix-summed. The sums wrap as Java's long arithmetic does, which is what the format
 * asks: an INT32 column's values are the low 32 bits of these sums, so one decoder serves both.
 * Every width and length is checked against the bytes present before it is read; the last mini
 * block may end early, where its padding (values past the page's count) would lie.
 */
final class DeltaBinaryPackedValues
{
    private DeltaBinaryPackedValues() {}

    /**
     * Decodes the first {@code count} values of the section at {@code data}'s position into
     * {@code target[0..count)}; {@code data} must be array-backed. {@code maxPageBytes} bounds what
     * the header may claim, as the page checks do.
     */
    static void decode(ByteBuffer data, int count, long[] target, long maxPageBytes)
    {
        if (count == 0) {
            return;
        }
        if (target.length < count) {
            throw new IllegalArgumentException("a target of " + target.length + " values for " + count);
        }
        long[] header = DeltaHeaders.header(data, count, maxPageBytes);
        if (header[2] < count) {
            throw new IllegalStateException("a DELTA_BINARY_PACKED header holds " + header[2] + " values, the page has " + count);
        }
        // Every block holds at least a min delta byte and one bit width byte per mini block, whatever its widths: a header
        // whose blocks cannot fit in the bytes left is refused here, before its counts are used as ints.
        long blocks = ((long) count - 1 + header[0] - 1) / header[0];
        long left = data.remaining();
        if (blocks > 0 && (header[1] + 1 > left || blocks > left / (header[1] + 1))) {
            throw new IllegalStateException("a DELTA_BINARY_PACKED header with blocks of " + header[0] + " values in " + header[1] + " mini blocks needs "
                    + blocks + " blocks of at least " + (header[1] + 1) + " bytes for " + count + " values, " + left + " bytes left in the page");
        }
        int miniBlocks = (int) header[1];
        int miniBlockValues = (int) (header[0] / header[1]);
        byte[] bytes = data.array();
        int limit = data.arrayOffset() + data.limit();
        long value = header[3];
        target[0] = value;
        int produced = 1;
        int block = 0;
        while (produced < count) {
            long zigzag = DeltaHeaders.varint(data);
            long minDelta = (zigzag >>> 1) ^ -(zigzag & 1);
            int widths = data.arrayOffset() + data.position();
            if (limit - widths < miniBlocks) {
                throw new IllegalStateException("the bit widths of DELTA_BINARY_PACKED block " + block + " are cut off: " + miniBlocks + " mini blocks, "
                        + (limit - widths) + " bytes left in the page");
            }
            int position = widths + miniBlocks;
            for (int mini = 0; mini < miniBlocks && produced < count; mini++) {
                int width = bytes[widths + mini] & 0xFF;
                if (width > Long.SIZE) {
                    throw new IllegalStateException("DELTA_BINARY_PACKED block " + block + ", mini block " + mini + " has a bit width of " + width);
                }
                int needed = Math.min(miniBlockValues, count - produced);
                long neededBytes = ((long) needed * width + 7) / 8;
                if (neededBytes > limit - position) {
                    throw new IllegalStateException("DELTA_BINARY_PACKED block " + block + ", mini block " + mini + " needs " + neededBytes + " bytes for "
                            + needed + " values of " + width + " bits, " + (limit - position) + " left in the page");
                }
                value = unpack(bytes, position, limit, width, needed, minDelta, value, target, produced);
                produced += needed;
                // The full mini block's bytes, but a page may end inside the padding of its last one.
                position += (int) Math.min((long) miniBlockValues * width / 8, limit - position);
            }
            data.position(position - data.arrayOffset());
            block++;
        }
    }

    // Adds `count` deltas of `width` bits from bytes[start..] (checked to hold them) to `value`, writing each sum; returns the last.
    private static long unpack(byte[] bytes, int start, int limit, int width, int count, long minDelta, long value, long[] target, int out)
    {
        if (width == 0) {
            for (int index = 0; index < count; index++) {
                value += minDelta;
                target[out + index] = value;
            }
            return value;
        }
        long mask = width == Long.SIZE ? -1L : (1L << width) - 1;
        long bit = (long) start * 8;
        for (int index = 0; index < count; index++) {
            int at = (int) (bit >>> 3);
            int shift = (int) (bit & 7);
            long delta;
            if (limit - at >= Long.BYTES) {
                delta = (long) LITTLE_ENDIAN_LONGS.get(bytes, at) >>> shift;
                if (shift + width > Long.SIZE) {
                    // The value's top bits lie in the ninth byte, which the length check covers.
                    delta |= (long) (bytes[at + Long.BYTES] & 0xFF) << (Long.SIZE - shift);
                }
            }
            else {
                // Near the page's end: only the bytes present (the value lies within them).
                delta = 0;
                for (int offset = 0; offset < limit - at; offset++) {
                    delta |= (long) (bytes[at + offset] & 0xFF) << (offset * 8);
                }
                delta >>>= shift;
            }
            value += minDelta + (delta & mask);
            target[out + index] = value;
            bit += width;
        }
        return value;
    }
}
