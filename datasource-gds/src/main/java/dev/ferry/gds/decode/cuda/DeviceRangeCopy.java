package dev.ferry.gds.decode.cuda;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

import static java.util.Objects.requireNonNull;

/**
 * Byte ranges gathered on the host and copied device to device in one launch of
 * {@code parquet_copy.cu} ({@link DecodeKernels#copyRanges}): a resident chunk's page bodies sit between
 * their headers, and one driver copy per body would cost hundreds of calls per chunk. The range table
 * (24 bytes per entry) is the only thing uploaded; it lives in the kernels' memory for the one launch.
 * Ranges of length 0 are dropped before the launch, so they take no block; a range longer than
 * {@link #PIECE} bytes is cut into entries of that many (the last shorter), because the kernel copies an
 * entry with one block and a chunk of a few large pages would otherwise run on a few multiprocessors.
 * Pieces start at multiples of 8 from the range's start, so each keeps the range's alignment.
 */
final class DeviceRangeCopy
{
    /** The most bytes one entry (one block of the launch) copies: 64 KiB, 32 strides of a 256-thread block's 8-byte words. */
    static final long PIECE = 1 << 16;
    private static final int LONGS_PER_RANGE = 3;
    // The table's bytes are one Java array.
    private static final int MAX_RANGES = (Integer.MAX_VALUE - 8) / (8 * LONGS_PER_RANGE);

    private final DecodeKernels kernels;
    private long[] table = new long[LONGS_PER_RANGE * 16];
    private int count;

    DeviceRangeCopy(DecodeKernels kernels)
    {
        this.kernels = requireNonNull(kernels, "kernels is null");
    }

    /** Adds {@code length} bytes from {@code source} to {@code target} (addresses in the kernels' memory). */
    DeviceRangeCopy add(long source, long target, long length)
    {
        if (length < 0) {
            throw new IllegalArgumentException("a device copy of " + length + " bytes from 0x" + Long.toHexString(source) + " to 0x" + Long.toHexString(target));
        }
        if (length == 0) {
            return this;
        }
        if (source == 0 || target == 0) {
            throw new IllegalArgumentException("a device copy of " + length + " bytes from 0x" + Long.toHexString(source) + " to 0x" + Long.toHexString(target)
                    + " names the null address");
        }
        for (long done = 0; done < length; done += PIECE) {
            entry(source + done, target + done, Math.min(PIECE, length - done));
        }
        return this;
    }

    private void entry(long source, long target, long length)
    {
        if (count == MAX_RANGES) {
            throw new IllegalStateException("more than " + count + " entries in one device copy");
        }
        if (LONGS_PER_RANGE * (count + 1) > table.length) {
            table = Arrays.copyOf(table, Math.min(LONGS_PER_RANGE * MAX_RANGES, 2 * table.length));
        }
        table[LONGS_PER_RANGE * count] = source;
        table[LONGS_PER_RANGE * count + 1] = target;
        table[LONGS_PER_RANGE * count + 2] = length;
        count++;
    }

    /** Entries so far (the blocks of the launch): a piece per {@link #PIECE} bytes of each range added with bytes. */
    int count()
    {
        return count;
    }

    /** One upload of the table, one launch for every entry, the table freed; nothing when no range has bytes. */
    void run()
    {
        if (count == 0) {
            return;
        }
        ByteBuffer bytes = ByteBuffer.allocate(8 * LONGS_PER_RANGE * count).order(ByteOrder.LITTLE_ENDIAN);
        bytes.asLongBuffer().put(table, 0, LONGS_PER_RANGE * count);
        long address = kernels.allocate(bytes.capacity());
        try {
            kernels.upload(bytes.array(), 0, bytes.capacity(), address);
            kernels.copyRanges(address, count);
        }
        finally {
            kernels.free(address);
        }
    }
}
