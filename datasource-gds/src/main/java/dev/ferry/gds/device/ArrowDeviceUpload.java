package dev.ferry.gds.device;

import dev.ferry.device.memory.DeviceBuffer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.spark.sql.types.DataType;

import java.util.ArrayList;
import java.util.List;

/**
 * Copies a decoded flat Arrow vector's buffers (validity, then offsets for variable width, then
 * values) into device memory byte for byte, each buffer exactly as long as its rows need: the
 * layout a device decoder must produce, so the two can be compared after a copy back. One
 * host-to-device crossing per buffer, counted by the runtime.
 */
public final class ArrowDeviceUpload
{
    private ArrowDeviceUpload() {}

    /** The bytes each of {@code vector}'s buffers holds for its rows, in buffer order. */
    public static List<Long> lengths(FieldVector vector)
    {
        int rows = vector.getValueCount();
        long validity = (rows + 7) / 8;
        if (vector instanceof BitVector) {
            return List.of(validity, validity);
        }
        if (vector instanceof BaseFixedWidthVector) {
            return List.of(validity, (long) ((BaseFixedWidthVector) vector).getTypeWidth() * rows);
        }
        if (vector instanceof BaseVariableWidthVector) {
            BaseVariableWidthVector variable = (BaseVariableWidthVector) vector;
            long dataBytes = rows == 0 ? 0 : variable.getOffsetBuffer().getInt((long) rows * BaseVariableWidthVector.OFFSET_WIDTH);
            return List.of(validity, (long) BaseVariableWidthVector.OFFSET_WIDTH * (rows + 1), dataBytes);
        }
        throw new IllegalArgumentException("column " + vector.getName() + " is a " + vector.getClass().getSimpleName()
                + "; device columns hold flat vectors (fixed width, bits, or offsets and bytes)");
    }

    /** {@code vector}'s buffers copied into new device buffers on {@code target}'s stream (not yet synchronized). */
    public static DeviceColumn upload(FieldVector vector, DataType type, DeviceTarget target)
    {
        return column(vector, type, (index, source, length) -> {
            if (length > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("column " + vector.getName() + " has a buffer of " + length + " bytes, more than one copy moves");
            }
            // Device allocations are never empty, and Arrow asks for 8-byte alignment: round up.
            DeviceBuffer buffer = target.runtime().deviceAllocator(target.device()).allocate(Math.max(8, (length + 7) & ~7L));
            if (length > 0) {
                try {
                    target.stream().copyFromHost(source.nioBuffer(0, (int) length), buffer, 0);
                }
                catch (RuntimeException | Error e) {
                    buffer.close();
                    throw e;
                }
            }
            return buffer;
        });
    }

    /** Makes the device buffer that holds buffer {@code index} of a vector ({@code source}, {@code length} bytes of it used). */
    @FunctionalInterface
    interface DeviceBufferMaker
    {
        DeviceBuffer make(int index, ArrowBuf source, long length);
    }

    /**
     * A device column over {@code vector}'s buffers, each buffer's device copy or view made by
     * {@code maker}, with each buffer's length as its rows need ({@link #lengths}); the device
     * buffers made so far are closed if one cannot be made.
     */
    static DeviceColumn column(FieldVector vector, DataType type, DeviceBufferMaker maker)
    {
        List<Long> lengths = lengths(vector);
        List<ArrowBuf> sources = vector.getFieldBuffers();
        if (sources.size() != lengths.size()) {
            throw new IllegalStateException("column " + vector.getName() + " has " + sources.size() + " buffers, expected " + lengths.size());
        }
        List<DeviceBuffer> buffers = new ArrayList<>();
        boolean success = false;
        try {
            for (int index = 0; index < sources.size(); index++) {
                buffers.add(maker.make(index, sources.get(index), lengths.get(index)));
            }
            success = true;
            return new DeviceColumn(vector.getName(), type, vector.getNullCount(), buffers, lengths);
        }
        finally {
            if (!success) {
                buffers.forEach(DeviceBuffer::close);
            }
        }
    }
}
