package dev.ferry.gds.io;

/**
 * The most bytes a run of zstd frames can decompress to, read from the frame and block headers
 * alone (one 3-byte header per block, never the compressed contents): a raw or RLE block
 * regenerates the size its header gives, a compressed block at most 128 KiB (zstd's block maximum).
 * Streaming writers (parquet-mr's, so Spark's) leave a frame's content size out; this bound still
 * tells a page header claiming half a gigabyte over a few kilobytes of frames before the array is taken.
 */
final class ZstdFrames
{
    private static final int FRAME_MAGIC = 0xFD2FB528;
    private static final int SKIPPABLE_MAGIC = 0x184D2A50;
    private static final int SKIPPABLE_MASK = 0xFFFFFFF0;
    private static final long BLOCK_MAXIMUM = 128 * 1024;

    private ZstdFrames() {}

    /** An upper bound on what {@code length} bytes of frames at {@code offset} decompress to, or -1 where the headers do not parse. */
    static long maxDecompressedSize(byte[] array, int offset, int length)
    {
        int position = offset;
        int end = offset + length;
        long total = 0;
        while (position < end) {
            if (end - position < 4) {
                return -1;
            }
            int magic = intAt(array, position);
            position += 4;
            if ((magic & SKIPPABLE_MASK) == SKIPPABLE_MAGIC) {
                if (end - position < 4) {
                    return -1;
                }
                long skipped = intAt(array, position) & 0xFFFFFFFFL;
                if (skipped > end - position - 4) {
                    return -1;
                }
                position += 4 + (int) skipped;
                continue;
            }
            if (magic != FRAME_MAGIC || position >= end) {
                return -1;
            }
            int descriptor = array[position++] & 0xFF;
            int contentSizeFlag = descriptor >>> 6;
            boolean singleSegment = (descriptor & 0x20) != 0;
            boolean checksum = (descriptor & 0x04) != 0;
            int dictionaryIdBytes = new int[] {0, 1, 2, 4}[descriptor & 0x03];
            int contentSizeBytes = new int[] {singleSegment ? 1 : 0, 2, 4, 8}[contentSizeFlag];
            position += (singleSegment ? 0 : 1) + dictionaryIdBytes + contentSizeBytes;
            while (true) {
                if (end - position < 3) {
                    return -1;
                }
                int header = (array[position] & 0xFF) | (array[position + 1] & 0xFF) << 8 | (array[position + 2] & 0xFF) << 16;
                position += 3;
                boolean last = (header & 1) != 0;
                int type = (header >>> 1) & 0x03;
                int size = header >>> 3;
                switch (type) {
                    case 0: // raw
                        total += size;
                        position += size;
                        break;
                    case 1: // RLE: one byte repeated
                        total += size;
                        position += 1;
                        break;
                    case 2: // compressed
                        total += BLOCK_MAXIMUM;
                        position += size;
                        break;
                    default:
                        return -1;
                }
                if (position > end) {
                    return -1;
                }
                if (last) {
                    break;
                }
            }
            position += checksum ? 4 : 0;
        }
        return position == end ? total : -1;
    }

    private static int intAt(byte[] array, int position)
    {
        return (array[position] & 0xFF) | (array[position + 1] & 0xFF) << 8 | (array[position + 2] & 0xFF) << 16 | (array[position + 3] & 0xFF) << 24;
    }
}
