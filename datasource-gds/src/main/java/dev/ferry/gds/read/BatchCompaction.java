package dev.ferry.gds.read;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;

/**
 * Keeps only the selected rows of a decoded batch's vectors. Flat fixed- and variable-width vectors
 * (everything the flat decode path makes) are compacted in place, moving each kept row down to its
 * new slot; any other vector (nested, from the general path) is copied row by row into a new one.
 */
final class BatchCompaction
{
    private BatchCompaction() {}

    /**
     * The vector holding rows {@code selected[0..count)} of {@code vector} (which has {@code rows}
     * rows), in that order: {@code vector} itself compacted, or a new vector from {@code allocator}
     * with {@code vector} closed. {@code selected} is ascending.
     */
    static FieldVector keep(FieldVector vector, int rows, int[] selected, int count, BufferAllocator allocator)
    {
        if (vector instanceof BitVector) {
            BitVector bits = (BitVector) vector;
            long validity = bits.getValidityBufferAddress();
            long data = bits.getDataBufferAddress();
            for (int slot = 0; slot < count; slot++) {
                int row = selected[slot];
                copyBit(validity, row, slot);
                copyBit(data, row, slot);
            }
            clearBits(validity, count, rows);
            bits.setValueCount(count);
            return bits;
        }
        if (vector instanceof BaseFixedWidthVector) {
            BaseFixedWidthVector fixed = (BaseFixedWidthVector) vector;
            int width = fixed.getTypeWidth();
            long validity = fixed.getValidityBufferAddress();
            long data = fixed.getDataBufferAddress();
            for (int slot = 0; slot < count; slot++) {
                int row = selected[slot];
                if (row != slot) {
                    moveValue(data, width, row, slot);
                    copyBit(validity, row, slot);
                }
            }
            clearBits(validity, count, rows);
            fixed.setValueCount(count);
            return fixed;
        }
        if (vector instanceof BaseVariableWidthVector) {
            BaseVariableWidthVector variable = (BaseVariableWidthVector) vector;
            long validity = variable.getValidityBufferAddress();
            long offsets = variable.getOffsetBufferAddress();
            long data = variable.getDataBufferAddress();
            // Slots never pass rows (slot <= row), so each row's offsets are read before a slot overwrites them.
            int end = MemoryUtil.getInt(offsets);
            for (int slot = 0; slot < count; slot++) {
                int row = selected[slot];
                int start = MemoryUtil.getInt(offsets + (long) row * 4);
                int length = MemoryUtil.getInt(offsets + (long) (row + 1) * 4) - start;
                if (start != end) {
                    // Overlapping ranges move correctly: Unsafe.copyMemory is a memmove.
                    MemoryUtil.copyMemory(data + start, data + end, length);
                }
                end += length;
                MemoryUtil.putInt(offsets + (long) (slot + 1) * 4, end);
                if (row != slot) {
                    copyBit(validity, row, slot);
                }
            }
            clearBits(validity, count, rows);
            variable.setLastSet(count - 1);
            variable.setValueCount(count);
            return variable;
        }
        FieldVector copy = vector.getField().createVector(allocator);
        try {
            copy.allocateNew();
            for (int slot = 0; slot < count; slot++) {
                copy.copyFromSafe(selected[slot], slot, vector);
            }
            copy.setValueCount(count);
        }
        catch (RuntimeException e) {
            copy.close();
            throw e;
        }
        vector.close();
        return copy;
    }

    // Common widths as plain loads and stores: a copyMemory call per value costs more than the value.
    private static void moveValue(long data, int width, int row, int slot)
    {
        switch (width) {
            case 4:
                MemoryUtil.putInt(data + (long) slot * 4, MemoryUtil.getInt(data + (long) row * 4));
                return;
            case 8:
                MemoryUtil.putLong(data + (long) slot * 8, MemoryUtil.getLong(data + (long) row * 8));
                return;
            case 16:
                MemoryUtil.putLong(data + (long) slot * 16, MemoryUtil.getLong(data + (long) row * 16));
                MemoryUtil.putLong(data + (long) slot * 16 + 8, MemoryUtil.getLong(data + (long) row * 16 + 8));
                return;
            default:
                MemoryUtil.copyMemory(data + (long) row * width, data + (long) slot * width, width);
        }
    }

    private static void copyBit(long address, int from, int to)
    {
        boolean set = ((MemoryUtil.getByte(address + (from >>> 3)) >>> (from & 7)) & 1) != 0;
        long target = address + (to >>> 3);
        byte current = MemoryUtil.getByte(target);
        MemoryUtil.putByte(target, (byte) (set ? current | (1 << (to & 7)) : current & ~(1 << (to & 7))));
    }

    // Bits of rows past the kept ones, so the vector holds no stale validity beyond its value count.
    private static void clearBits(long address, int from, int to)
    {
        for (int index = from; index < to; index++) {
            long target = address + (index >>> 3);
            MemoryUtil.putByte(target, (byte) (MemoryUtil.getByte(target) & ~(1 << (index & 7))));
        }
    }
}
