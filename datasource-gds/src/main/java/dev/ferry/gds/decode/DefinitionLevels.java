package dev.ferry.gds.decode;

import org.apache.parquet.column.Encoding;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A flat column's definition levels for one data page (0 null, 1 present), decoded in bulk from
 * the page's RLE/bit-packed hybrid runs (or the deprecated BIT_PACKED encoding of data page v1).
 * The array is reused across pages; the value loops read it directly. A page whose levels are one
 * RLE run of 1s over all its values (every value present: what DuckDB writes for a column without
 * nulls, one run per 122,880-value page) is not expanded at all: filling and then summing an int per
 * value cost a tenth of the decode on such files (JFR), and the loops read no level where a page has
 * no nulls.
 */
final class DefinitionLevels
{
    private final RleHybridDecoder rle;
    private int[] levels = new int[0];
    // The current page's levels are all 1 and were not written into `levels`.
    private boolean allPresent;

    DefinitionLevels(RleHybridDecoder rle)
    {
        this.rle = rle;
    }

    /**
     * The levels of the current page, valid for its first {@code values} entries; replaced when a larger page arrives.
     * Not written where every value of the page is present ({@link #present} equals the page's values): read them only
     * for a page with nulls.
     */
    int[] levels()
    {
        return levels;
    }

    /** Makes room for a page of {@code values} entries. */
    void ensure(int values)
    {
        if (levels.length < values) {
            levels = new int[values];
        }
    }

    /**
     * A data page v1's levels at the position of {@code bytes}, which is moved past them:
     * RLE levels are prefixed by their 4-byte length, BIT_PACKED ones are not.
     */
    void decodeV1(Encoding encoding, ByteBuffer bytes, int values)
    {
        ensure(values);
        if (encoding == Encoding.BIT_PACKED) {
            bitPacked(bytes, values);
            return;
        }
        if (encoding != Encoding.RLE) {
            throw new IllegalStateException("definition levels encoded " + encoding);
        }
        int length = bytes.getInt();
        if (length < 0 || length > bytes.remaining()) {
            throw new IllegalStateException("definition levels of " + length + " bytes in a page with " + bytes.remaining() + " left");
        }
        ByteBuffer runs = bytes.slice().order(ByteOrder.LITTLE_ENDIAN);
        runs.limit(length);
        decodeRuns(runs, values);
        bytes.position(bytes.position() + length);
    }

    /** A data page v2's levels: their own byte range, RLE without a length prefix. */
    void decodeV2(ByteBuffer runs, int values)
    {
        ensure(values);
        decodeRuns(runs.order(ByteOrder.LITTLE_ENDIAN), values);
    }

    private void decodeRuns(ByteBuffer runs, int values)
    {
        allPresent = values > 0 && oneRunOfOnes(runs, values);
        if (!allPresent) {
            rle.decode(runs, 1, values, levels);
        }
    }

    // Whether the runs open with an RLE run of value 1 (bit width 1: one value byte) covering all `values`; position unchanged.
    private static boolean oneRunOfOnes(ByteBuffer runs, int values)
    {
        int position = runs.position();
        long header = 0;
        for (int shift = 0; shift <= 28; shift += 7) {
            if (position >= runs.limit()) {
                return false;
            }
            int next = runs.get(position++) & 0xFF;
            header |= (long) (next & 0x7F) << shift;
            if ((next & 0x80) == 0) {
                return (header & 1) == 0 && header >>> 1 >= values && position < runs.limit() && runs.get(position) == 1;
            }
        }
        return false;
    }

    /** How many of the page's {@code values} entries are present, refusing a level above the maximum 1. */
    int present(int values)
    {
        if (allPresent) {
            return values;
        }
        int present = 0;
        for (int index = 0; index < values; index++) {
            if (levels[index] > 1) {
                throw new IllegalStateException("definition level " + levels[index] + " above the maximum 1");
            }
            present += levels[index];
        }
        return present;
    }

    // The deprecated BIT_PACKED level encoding: one bit per level, most significant bit first, no length prefix.
    private void bitPacked(ByteBuffer bytes, int values)
    {
        allPresent = false;
        int length = (values + 7) / 8;
        if (length > bytes.remaining()) {
            throw new IllegalStateException("bit-packed definition levels need " + length + " bytes, the page has " + bytes.remaining());
        }
        for (int index = 0; index < values; index++) {
            levels[index] = (bytes.get(bytes.position() + index / 8) >> (7 - index % 8)) & 1;
        }
        bytes.position(bytes.position() + length);
    }
}
