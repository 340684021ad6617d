package dev.ferry.device.partition;

import dev.ferry.device.memory.DeviceBuffer;

import static java.util.Objects.requireNonNull;

/**
 * One Arrow column of the batch being partitioned, in device memory: its validity bitmap
 * ({@code null}: every row valid), for {@link Layout#BYTES} the int32 offsets, and the values
 * ({@code width} bytes each for {@link Layout#FIXED}, bits for {@link Layout#BITS}, bytes for strings).
 */
public record PartitionColumn(String name, Layout layout, int width, DeviceBuffer validity, DeviceBuffer offsets, DeviceBuffer values, int nullCount)
{
    public enum Layout
    {
        FIXED,
        BITS,
        BYTES
    }

    public PartitionColumn
    {
        requireNonNull(name, "name is null");
        requireNonNull(layout, "layout is null");
        requireNonNull(values, "values of column " + name + " is null");
        if (layout == Layout.FIXED && width <= 0) {
            throw new IllegalArgumentException("column " + name + ": a fixed-width column needs a positive width, got " + width);
        }
        if ((layout == Layout.BYTES) != (offsets != null)) {
            throw new IllegalArgumentException("column " + name + ": offsets are for string and binary columns only");
        }
    }

    /** Refuses buffers too small for {@code rows}, so no kernel reads past an allocation. */
    void checkRows(int rows)
    {
        long validityBytes = ((long) rows + 7) / 8;
        if (validity != null && validity.length() < validityBytes) {
            throw new IllegalArgumentException("column " + name + ": validity of " + validity.length() + " bytes for " + rows + " rows");
        }
        long valueBytes = switch (layout) {
            case FIXED -> (long) width * rows;
            case BITS -> validityBytes;
            case BYTES -> 0;
        };
        if (values.length() < valueBytes) {
            throw new IllegalArgumentException("column " + name + ": values of " + values.length() + " bytes for " + rows + " rows of " + layout + " width " + width);
        }
        if (offsets != null && offsets.length() < 4L * (rows + 1)) {
            throw new IllegalArgumentException("column " + name + ": offsets of " + offsets.length() + " bytes for " + rows + " rows");
        }
    }
}
