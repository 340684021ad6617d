package dev.ferry.gds.decode;

import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.parquet.io.api.Binary;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The flat path's raw reads from page arrays and writes into Arrow buffers: static and final, so
 * the value loops that call them stay one compiled loop per column chunk with no call per value
 * left after inlining.
 */
final class FlatBytes
{
    static final VarHandle LITTLE_ENDIAN_LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    static final VarHandle LITTLE_ENDIAN_INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long JULIAN_DAY_OF_EPOCH = 2_440_588;
    private static final long MICROS_PER_DAY = 86_400_000_000L;

    private FlatBytes() {}

    static void setBit(long address, int index)
    {
        long byteAddress = address + (index >>> 3);
        MemoryUtil.putByte(byteAddress, (byte) (MemoryUtil.getByte(byteAddress) | (1 << (index & 7))));
    }

    static void setBits(long address, int first, int count)
    {
        int index = first;
        int end = first + count;
        while (index < end && (index & 7) != 0) {
            setBit(address, index++);
        }
        if (end - index >= 8) {
            // Word stores, not Unsafe.setMemory: for the few hundred bytes of a batch's bitmap its
            // native call cost more than the stores (JFR: an eighth of a filtered scan's task time).
            int bytes = (end - index) >>> 3;
            long at = address + (index >>> 3);
            long stop = at + bytes;
            for (; at + 8 <= stop; at += 8) {
                MemoryUtil.putLong(at, -1L);
            }
            for (; at < stop; at++) {
                MemoryUtil.putByte(at, (byte) -1);
            }
            index += bytes << 3;
        }
        while (index < end) {
            setBit(address, index++);
        }
    }

    // Arrow decimals are 16-byte little-endian two's complement: the value, then its sign extension.
    static void putDecimal(long data, int row, long unscaled)
    {
        long address = data + (long) row * 16;
        MemoryUtil.putLong(address, unscaled);
        MemoryUtil.putLong(address + 8, unscaled >> 63);
    }

    static long int96Micros(long nanosOfDay, int julianDay)
    {
        return (julianDay - JULIAN_DAY_OF_EPOCH) * MICROS_PER_DAY + nanosOfDay / 1000;
    }

    static long int96Micros(Binary value)
    {
        if (value.length() != 12) {
            throw new IllegalStateException("INT96 value of " + value.length() + " bytes");
        }
        ByteBuffer bytes = value.toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        return int96Micros(bytes.getLong(bytes.position()), bytes.getInt(bytes.position() + 8));
    }

    static void copyValues(ByteBuffer source, long address, int bytes)
    {
        if (bytes > source.remaining()) {
            throw new IllegalStateException(bytes + " value bytes wanted, " + source.remaining() + " left in the page");
        }
        if (source.hasArray()) {
            MemoryUtil.copyToMemory(source.array(), source.arrayOffset() + source.position(), address, bytes);
        }
        else {
            MemoryUtil.copyMemory(MemoryUtil.getByteBufferAddress(source) + source.position(), address, bytes);
        }
        source.position(source.position() + bytes);
    }

    static void checkLeft(int left, int width)
    {
        if (left < width) {
            throw new IllegalStateException("value of " + width + " bytes cut off with " + left + " bytes left in the page");
        }
    }
}
