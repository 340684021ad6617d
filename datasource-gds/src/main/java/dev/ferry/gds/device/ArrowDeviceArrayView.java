package dev.ferry.gds.device;

import org.apache.arrow.memory.util.MemoryUtil;

import static dev.ferry.gds.device.ArrowDeviceArrayLayout.ARRAY_BUFFERS;
import static dev.ferry.gds.device.ArrowDeviceArrayLayout.ARRAY_CHILDREN;
import static dev.ferry.gds.device.ArrowDeviceArrayLayout.ARRAY_LENGTH;
import static dev.ferry.gds.device.ArrowDeviceArrayLayout.ARRAY_NULL_COUNT;
import static dev.ferry.gds.device.ArrowDeviceArrayLayout.ARRAY_N_BUFFERS;
import static dev.ferry.gds.device.ArrowDeviceArrayLayout.ARRAY_N_CHILDREN;
import static dev.ferry.gds.device.ArrowDeviceArrayLayout.ARRAY_OFFSET;
import static dev.ferry.gds.device.ArrowDeviceArrayLayout.DEVICE_ID;
import static dev.ferry.gds.device.ArrowDeviceArrayLayout.DEVICE_TYPE;

/**
 * Reads an {@code ArrowDeviceArray} the way a consumer sees it: only from its address and the
 * specification's offsets. The struct fields can always be read; buffer contents only when the
 * device type is host-addressable ({@code ARROW_DEVICE_CPU} or {@code ARROW_DEVICE_CUDA_HOST}),
 * else reading them is refused (a CUDA pointer is not host memory).
 */
public final class ArrowDeviceArrayView
{
    private final long deviceArray;

    public ArrowDeviceArrayView(long deviceArray)
    {
        if (deviceArray == 0) {
            throw new IllegalArgumentException("null ArrowDeviceArray");
        }
        this.deviceArray = deviceArray;
    }

    public int deviceType()
    {
        return MemoryUtil.getInt(deviceArray + DEVICE_TYPE);
    }

    public long deviceId()
    {
        return MemoryUtil.getLong(deviceArray + DEVICE_ID);
    }

    /** The specification's test for a released array: its {@code release} callback is NULL. */
    public boolean released()
    {
        return ReleaseCallbacks.isReleased(deviceArray);
    }

    /** Done with the array: calls its {@code release} callback (a no-op when already released). */
    public void release()
    {
        ReleaseCallbacks.release(deviceArray);
    }

    public Array array()
    {
        return new Array(deviceArray, hostReadable());
    }

    private boolean hostReadable()
    {
        int type = deviceType();
        return type == ArrowDeviceArrayLayout.ARROW_DEVICE_CPU || type == ArrowDeviceArrayLayout.ARROW_DEVICE_CUDA_HOST;
    }

    /** One {@code struct ArrowArray}. */
    public static final class Array
    {
        private final long address;
        private final boolean hostReadable;

        private Array(long address, boolean hostReadable)
        {
            this.address = address;
            this.hostReadable = hostReadable;
        }

        /** Whether this struct's {@code release} callback is NULL (released). */
        public boolean released()
        {
            return ReleaseCallbacks.isReleased(address);
        }

        public long length()
        {
            return MemoryUtil.getLong(address + ARRAY_LENGTH);
        }

        public long nullCount()
        {
            return MemoryUtil.getLong(address + ARRAY_NULL_COUNT);
        }

        public long offset()
        {
            return MemoryUtil.getLong(address + ARRAY_OFFSET);
        }

        public int bufferCount()
        {
            return Math.toIntExact(MemoryUtil.getLong(address + ARRAY_N_BUFFERS));
        }

        public int childCount()
        {
            return Math.toIntExact(MemoryUtil.getLong(address + ARRAY_N_CHILDREN));
        }

        public long buffer(int index)
        {
            checkIndex(index, bufferCount(), "buffer");
            return MemoryUtil.getLong(MemoryUtil.getLong(address + ARRAY_BUFFERS) + 8L * index);
        }

        public Array child(int index)
        {
            checkIndex(index, childCount(), "child");
            return new Array(MemoryUtil.getLong(MemoryUtil.getLong(address + ARRAY_CHILDREN) + 8L * index), hostReadable);
        }

        /** Whether row {@code row} is valid per the validity bitmap (buffer 0; none = all valid). */
        public boolean isValid(long row)
        {
            long validity = buffer(0);
            if (validity == 0) {
                return true;
            }
            long bit = row + offset();
            return (host(validity, bit >>> 3, 1).get(0) >> (bit & 7) & 1) == 1;
        }

        public int int32(int bufferIndex, long row)
        {
            return host(buffer(bufferIndex), 4 * (row + offset()), 4).getInt(0);
        }

        public long int64(int bufferIndex, long row)
        {
            return host(buffer(bufferIndex), 8 * (row + offset()), 8).getLong(0);
        }

        public double float64(int bufferIndex, long row)
        {
            return host(buffer(bufferIndex), 8 * (row + offset()), 8).getDouble(0);
        }

        /** A UTF-8 string of a string array: offsets in buffer 1, bytes in buffer 2. */
        public String utf8(long row)
        {
            int start = int32(1, row);
            int end = int32(1, row + 1);
            byte[] bytes = new byte[end - start];
            host(buffer(2), start, bytes.length).get(bytes);
            return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
        }

        private java.nio.ByteBuffer host(long base, long offset, int length)
        {
            if (!hostReadable) {
                throw new IllegalStateException("The buffers are device memory, not readable from the host");
            }
            return MemoryUtil.directBuffer(base + offset, Math.max(length, 1)).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        }

        private static void checkIndex(int index, int count, String what)
        {
            if (index < 0 || index >= count) {
                throw new IndexOutOfBoundsException(what + " " + index + " of " + count);
            }
        }
    }
}
