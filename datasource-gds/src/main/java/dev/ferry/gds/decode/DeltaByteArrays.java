package dev.ferry.gds.decode;

import java.nio.ByteBuffer;

/**
 * Decodes a page's DELTA_LENGTH_BYTE_ARRAY or DELTA_BYTE_ARRAY values in bulk into one byte array
 * and the start of each value in it, instead of parquet-mr's readers' per-value slices and copies.
 * DELTA_LENGTH_BYTE_ARRAY is a DELTA_BINARY_PACKED stream of lengths followed by the values' bytes
 * back to back, so its values stay in the page array. DELTA_BYTE_ARRAY is a stream of prefix
 * lengths and a DELTA_LENGTH_BYTE_ARRAY section of suffixes, each value the first prefix-length
 * bytes of the one before it and then its suffix; those are built into an array of this class's.
 * Every length is checked before any byte is copied: lengths and prefixes non-negative, a prefix no
 * longer than the value before it, the suffixes within the bytes left in the page, and the values'
 * total within the page bound (spark.ferry.gds.io.maxPageBytes). One instance belongs to one column's
 * reader; its arrays are reused from page to page.
 */
final class DeltaByteArrays
{
    private long[] lengths = new long[0];
    private long[] prefixes = new long[0];
    private byte[] built = new byte[0];
    private byte[] bytes = new byte[0];
    // starts[i]..starts[i + 1]: value i's bytes in `bytes`.
    private int[] starts = new int[1];

    /** The array holding the decoded values (the page's own for DELTA_LENGTH_BYTE_ARRAY). */
    byte[] bytes()
    {
        return bytes;
    }

    /** Value {@code index}'s first byte in {@link #bytes()}; {@code starts()[index + 1]} is one past its last. */
    int[] starts()
    {
        return starts;
    }

    /** Decodes {@code count} DELTA_LENGTH_BYTE_ARRAY values at {@code data}'s position (array-backed; it moves past them). */
    void decodeLengths(ByteBuffer data, int count, long maxPageBytes)
    {
        ensure(count);
        lengths(data, count, maxPageBytes, lengths, "length");
        int first = data.arrayOffset() + data.position();
        long total = suffixBytes(data, count, lengths);
        bytes = data.array();
        int position = first;
        for (int index = 0; index < count; index++) {
            starts[index] = position;
            position += (int) lengths[index];
        }
        starts[count] = position;
        data.position(data.position() + (int) total);
    }

    /** Decodes {@code count} DELTA_BYTE_ARRAY values at {@code data}'s position (array-backed; it moves past them). */
    void decodePrefixed(ByteBuffer data, int count, long maxPageBytes)
    {
        ensure(count);
        lengths(data, count, maxPageBytes, prefixes, "prefix length");
        lengths(data, count, maxPageBytes, lengths, "suffix length");
        int suffixes = data.arrayOffset() + data.position();
        long suffixTotal = suffixBytes(data, count, lengths);
        // The values' lengths first, checked, so the array is sized once.
        long total = 0;
        long previous = 0;
        for (int index = 0; index < count; index++) {
            long prefix = prefixes[index];
            if (prefix > previous) {
                throw new IllegalStateException("DELTA_BYTE_ARRAY value " + index + " takes a prefix of " + prefix + " bytes from a value of " + previous
                        + (index == 0 ? " (the page's first value; files of parquet-mr before 1.8 may continue the previous page's, PARQUET-246)" : ""));
            }
            previous = prefix + lengths[index];
            total += previous;
            if (total > maxPageBytes || total > Integer.MAX_VALUE - 8) {
                throw new IllegalStateException("DELTA_BYTE_ARRAY values of more than " + Math.min(maxPageBytes, Integer.MAX_VALUE - 8)
                        + " bytes in one page (the page bound), at value " + index + " of " + count);
            }
        }
        if (built.length < total) {
            built = new byte[(int) total];
        }
        byte[] page = data.array();
        int from = suffixes;
        int to = 0;
        int previousStart = 0;
        for (int index = 0; index < count; index++) {
            int prefix = (int) prefixes[index];
            int suffix = (int) lengths[index];
            System.arraycopy(built, previousStart, built, to, prefix);
            System.arraycopy(page, from, built, to + prefix, suffix);
            starts[index] = to;
            previousStart = to;
            to += prefix + suffix;
            from += suffix;
        }
        starts[count] = to;
        bytes = built;
        data.position(data.position() + (int) suffixTotal);
    }

    private void ensure(int count)
    {
        if (lengths.length < count) {
            lengths = new long[count];
            prefixes = new long[count];
        }
        if (starts.length < count + 1) {
            starts = new int[count + 1];
        }
    }

    // One DELTA_BINARY_PACKED stream of `count` lengths into `target`, each checked to be a non-negative int.
    private static void lengths(ByteBuffer data, int count, long maxPageBytes, long[] target, String what)
    {
        if (count == 0) {
            return;
        }
        DeltaBinaryPackedValues.decode(data, count, target, maxPageBytes);
        for (int index = 0; index < count; index++) {
            long length = target[index];
            if (length < 0 || length > Integer.MAX_VALUE) {
                throw new IllegalStateException("a " + what + " of " + length + " for value " + index + " of " + count);
            }
        }
    }

    // The bytes the `count` lengths claim, checked against what is left in the page.
    private static long suffixBytes(ByteBuffer data, int count, long[] lengths)
    {
        long total = 0;
        for (int index = 0; index < count; index++) {
            total += lengths[index];
        }
        if (total > data.remaining()) {
            throw new IllegalStateException(count + " byte arrays of " + total + " bytes in all, " + data.remaining() + " bytes left in the page");
        }
        return total;
    }
}
