package dev.ferry.gds.decode;

import java.nio.ByteBuffer;

/**
 * Counts the values an RLE / bit-packed hybrid stream holds by reading only its run headers (one
 * varint per run, never per value), so a page's claimed value count is checked against its bytes
 * before any decoder sizes an array from it. A bit-packed run may declare more values than are still
 * wanted (padding) only while its bytes lie inside the data: parquet-mr's decoder allocates a run's
 * values in one array, so a header is never believed beyond the bytes that back it.
 */
final class RleRunScan
{
    private RleRunScan() {}

    /**
     * The values the runs in {@code input} (from its position to its limit) hold, counting no more
     * than {@code wanted}; the buffer's position is left unchanged.
     *
     * @throws IllegalStateException when a run is malformed, or a bit-packed run declares more values than wanted and runs past the data
     */
    static long covered(ByteBuffer input, int bitWidth, long wanted)
    {
        if (bitWidth < 0 || bitWidth > 32) {
            throw new IllegalStateException("bit width " + bitWidth + " outside 0..32");
        }
        int byteWidth = (bitWidth + 7) / 8;
        int position = input.position();
        int limit = input.limit();
        long covered = 0;
        while (covered < wanted && position < limit) {
            long header = 0;
            int shift = 0;
            while (true) {
                if (position == limit) {
                    throw new IllegalStateException("a run header is cut off at the end of its data");
                }
                int next = input.get(position++) & 0xFF;
                header |= (long) (next & 0x7F) << shift;
                if ((next & 0x80) == 0) {
                    break;
                }
                shift += 7;
                if (shift > 28) {
                    throw new IllegalStateException("run header varint longer than 5 bytes");
                }
            }
            long count = header >>> 1;
            if ((header & 1) == 0) {
                if (count == 0) {
                    throw new IllegalStateException("empty RLE run");
                }
                if (byteWidth > limit - position) {
                    throw new IllegalStateException("an RLE run's value is cut off at the end of its data");
                }
                position += byteWidth;
                covered += count;
            }
            else {
                long values = count * 8;
                if (count == 0) {
                    throw new IllegalStateException("empty bit-packed run");
                }
                long bytes = count * bitWidth;
                if (values > wanted - covered + 7) {
                    // More values than are left: padding, as DuckDB writes (its last run is padded to whole blocks of groups).
                    // Taken only when the run's bytes lie inside the data, so a decoder that allocates the run reads no further
                    // than the page; the extra values are never read. A run past the data is a corrupt (or hostile) header.
                    if (bytes > limit - position) {
                        throw new IllegalStateException("bit-packed run of " + values + " values where " + (wanted - covered)
                                + " are left, and its " + bytes + " bytes run past the " + (limit - position) + " left in the data");
                    }
                    return wanted;
                }
                if (bytes > limit - position) {
                    // A last run cut short holds what its bytes hold (parquet-mr reads it so).
                    covered += bitWidth == 0 ? values : (long) (limit - position) * 8 / bitWidth;
                    position = limit;
                }
                else {
                    position += (int) bytes;
                    covered += values;
                }
            }
        }
        return Math.min(covered, wanted);
    }
}
