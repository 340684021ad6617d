package dev.ferry.gds.decode.cuda;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads back the range table a {@link DecodeKernels#copyRanges} launch is given (the layout {@link DeviceRangeCopy}
 * writes: source, target, length as little-endian longs per entry), so test kernels can record what a launch copied from.
 */
public final class CopyRangeTable
{
    private static final int ENTRY_BYTES = 24;

    private CopyRangeTable() {}

    /** The source address of each of the {@code count} entries of the table at {@code ranges} in {@code kernels}' memory. */
    public static List<Long> sources(DecodeKernels kernels, long ranges, int count)
    {
        byte[] table = new byte[ENTRY_BYTES * count];
        kernels.download(ranges, table, 0, table.length);
        ByteBuffer entries = ByteBuffer.wrap(table).order(ByteOrder.LITTLE_ENDIAN);
        List<Long> sources = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            sources.add(entries.getLong(ENTRY_BYTES * i));
        }
        return sources;
    }
}
