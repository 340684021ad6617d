package dev.ferry.gds.decode;

import org.apache.parquet.column.Encoding;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A flat column's definition levels for one data page (0 null, 1 present), decoded in bulk from
 * the page's RLE/bit-packed hybrid runs (or the deprecated BIT_PACKED encoding of data page v1).
 * The array is reused across pages; the value loops read it directly.
 */
final class DefinitionLevels
{
    private final RleHybridDecoder rle;
    private int[] levels = new int[0];

    DefinitionLevels(RleHybridDecoder rle)
    {
        this.rle = rle;
    }

    /** The levels of the current page, valid for its first {@code values} entries; replaced when a larger page arrives. */
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
        rle.decode(runs, 1, values, levels);
        bytes.position(bytes.position() + length);
    }

    /** A data page v2's levels: their own byte range, RLE without a length prefix. */
    void decodeV2(ByteBuffer runs, int values)
    {
        ensure(values);
        rle.decode(runs.order(ByteOrder.LITTLE_ENDIAN), 1, values, levels);
    }

    /** How many of the page's {@code values} entries are present, refusing a level above the maximum 1. */
    int present(int values)
    {
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
