package dev.ferry.shuffle.format.append;

import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

import static java.util.Objects.requireNonNull;

/**
 * Strings and binaries (32-bit offsets) filled by address: a string's bytes are copied straight
 * from wherever the row keeps them (an UnsafeRow's memory, a column vector's array) into the
 * vector's data buffer, with no intermediate {@code ByteBuffer} and one capacity check per value.
 * Every index gets its end offset written, nulls included, so the offsets need no hole filling.
 */
final class VariableWidthAppender
        extends ColumnAppender
{
    private final BaseVariableWidthVector vector;
    private final boolean binary;
    private int capacity;
    private long dataCapacity;
    private long validity;
    private long offsets;
    private long data;
    private int used;

    VariableWidthAppender(BaseVariableWidthVector vector, boolean binary)
    {
        this.vector = requireNonNull(vector, "vector is null");
        this.binary = binary;
        vector.allocateNew();
        refresh();
    }

    private void refresh()
    {
        capacity = vector.getValueCapacity();
        dataCapacity = vector.getDataBuffer().capacity();
        validity = vector.getValidityBufferAddress();
        offsets = vector.getOffsetBufferAddress();
        data = vector.getDataBufferAddress();
    }

    @Override
    public void append(SpecializedGetters row, int ordinal, int index)
    {
        // Offsets need index + 2 entries (the start of value 0 and the end of each value).
        while (index >= capacity) {
            vector.reAlloc();
            refresh();
        }
        if (index == 0) {
            MemoryUtil.putInt(offsets, 0);
            used = 0;
        }
        if (row.isNullAt(ordinal)) {
            FixedWidthAppender.setBit(validity, index, false);
            MemoryUtil.putInt(offsets + (long) (index + 1) * 4, used);
            return;
        }
        if (binary) {
            byte[] bytes = row.getBinary(ordinal);
            ensureData(bytes.length);
            Platform.copyMemory(bytes, Platform.BYTE_ARRAY_OFFSET, null, data + used, bytes.length);
            used += bytes.length;
        }
        else {
            UTF8String string = row.getUTF8String(ordinal);
            int length = string.numBytes();
            ensureData(length);
            string.writeToMemory(null, data + used);
            used += length;
        }
        FixedWidthAppender.setBit(validity, index, true);
        MemoryUtil.putInt(offsets + (long) (index + 1) * 4, used);
    }

    @Override
    public void appendAll(SpecializedGetters[] rows, int count, int ordinal, int firstIndex)
    {
        for (int i = 0; i < count; i++) {
            append(rows[i], ordinal, firstIndex + i);
        }
    }

    private void ensureData(int length)
    {
        long needed = (long) used + length;
        if (needed > Integer.MAX_VALUE) {
            throw new IllegalStateException("One Arrow batch column would exceed 2 GiB of variable-width data");
        }
        while (needed > dataCapacity) {
            vector.reallocDataBuffer();
            refresh();
        }
    }

    @Override
    public void finish(int rows)
    {
        // The offsets of every index up to rows are written: tell the vector so it fills no holes.
        vector.setLastSet(rows - 1);
        vector.setValueCount(rows);
        refresh();
    }

    @Override
    public void reset()
    {
        vector.reset();
        used = 0;
        refresh();
    }

    @Override
    public long sizeInBytes(int rows)
    {
        return used + (long) (rows + 1) * 4 + (rows + 7) / 8;
    }
}
