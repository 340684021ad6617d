package dev.ferry.gds.device;

import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.memory.DeviceBuffer;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * Moves a batch of the gds reader into device memory in Arrow's layout: each column is packed into
 * host staging buffers (validity bitmap, offsets, values; the reader decodes on the CPU today) and
 * copied to the device on one stream, which is synchronized before the batch is returned. Types:
 * int, date (int32 days), bigint, double, string (int32 offsets); other types are refused with the
 * column's name, so a caller never gets a batch with a column silently left out.
 */
public final class DeviceBatchUploader
{
    public static final Set<DataType> SUPPORTED = Set.of(DataTypes.IntegerType, DataTypes.DateType, DataTypes.LongType, DataTypes.DoubleType, DataTypes.StringType);

    private final DeviceRuntime runtime;
    private final int device;

    public DeviceBatchUploader(DeviceRuntime runtime, int device)
    {
        this.runtime = requireNonNull(runtime, "runtime is null");
        if (device < 0 || device >= Math.max(1, runtime.deviceCount())) {
            throw new IllegalArgumentException("Device " + device + " is not one of the " + runtime.deviceCount() + " devices of backend " + runtime.backendName());
        }
        this.device = device;
    }

    /** Refuses a schema with a column type the uploader does not lay out. */
    public static void checkSchema(StructType schema)
    {
        for (StructField field : schema.fields()) {
            if (!SUPPORTED.contains(field.dataType())) {
                throw new IllegalArgumentException("Column " + field.name() + " has type " + field.dataType().simpleString()
                        + "; device batches hold int, date, bigint, double and string columns");
            }
        }
    }

    public DeviceBatch upload(ColumnarBatch batch, StructType schema)
    {
        requireNonNull(batch, "batch is null");
        checkSchema(schema);
        if (batch.numCols() != schema.fields().length) {
            throw new IllegalArgumentException("Batch has " + batch.numCols() + " columns, schema " + schema.fields().length);
        }
        int rows = batch.numRows();
        List<DeviceColumn> columns = new ArrayList<>();
        boolean success = false;
        try (DeviceStream stream = runtime.newStream(device)) {
            for (int i = 0; i < batch.numCols(); i++) {
                StructField field = schema.fields()[i];
                columns.add(column(stream, field, batch.column(i), rows));
            }
            stream.synchronize();
            success = true;
            return new DeviceBatch(device, rows, columns);
        }
        finally {
            if (!success) {
                columns.forEach(column -> column.buffers().forEach(DeviceBuffer::close));
            }
        }
    }

    private DeviceColumn column(DeviceStream stream, StructField field, ColumnVector vector, int rows)
    {
        DataType type = field.dataType();
        ByteBuffer validity = host((rows + 7) / 8);
        int nulls = 0;
        for (int row = 0; row < rows; row++) {
            if (vector.isNullAt(row)) {
                nulls++;
            }
            else {
                int index = row >>> 3;
                validity.put(index, (byte) (validity.get(index) | (1 << (row & 7))));
            }
        }
        List<ByteBuffer> hostBuffers = new ArrayList<>();
        hostBuffers.add(validity);
        if (type.equals(DataTypes.StringType)) {
            ByteBuffer offsets = host(4L * (rows + 1));
            List<byte[]> values = new ArrayList<>(rows);
            int total = 0;
            for (int row = 0; row < rows; row++) {
                byte[] bytes = vector.isNullAt(row) ? new byte[0] : vector.getUTF8String(row).getBytes();
                values.add(bytes);
                offsets.putInt(4 * row, total);
                total = Math.addExact(total, bytes.length);
            }
            offsets.putInt(4 * rows, total);
            ByteBuffer data = host(total);
            values.forEach(data::put);
            data.clear();
            hostBuffers.add(offsets);
            hostBuffers.add(data);
        }
        else {
            int width = type.equals(DataTypes.LongType) || type.equals(DataTypes.DoubleType) ? 8 : 4;
            ByteBuffer values = host((long) width * rows);
            for (int row = 0; row < rows; row++) {
                if (vector.isNullAt(row)) {
                    continue;
                }
                if (type.equals(DataTypes.LongType)) {
                    values.putLong(8 * row, vector.getLong(row));
                }
                else if (type.equals(DataTypes.DoubleType)) {
                    values.putDouble(8 * row, vector.getDouble(row));
                }
                else {
                    values.putInt(4 * row, vector.getInt(row));
                }
            }
            hostBuffers.add(values);
        }
        List<DeviceBuffer> buffers = new ArrayList<>();
        List<Long> lengths = new ArrayList<>();
        try {
            for (ByteBuffer hostBuffer : hostBuffers) {
                long length = hostBuffer.capacity();
                // Device allocations are never empty, and Arrow asks for 8-byte alignment: round up.
                DeviceBuffer buffer = runtime.deviceAllocator(device).allocate(Math.max(8, (length + 7) & ~7L));
                buffers.add(buffer);
                lengths.add(length);
                hostBuffer.clear();
                stream.copyFromHost(hostBuffer, buffer, 0);
            }
        }
        catch (RuntimeException e) {
            buffers.forEach(DeviceBuffer::close);
            throw e;
        }
        return new DeviceColumn(field.name(), type, nulls, buffers, lengths);
    }

    private static ByteBuffer host(long bytes)
    {
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("A column buffer of " + bytes + " bytes is larger than one host staging buffer can be");
        }
        return ByteBuffer.allocateDirect((int) bytes).order(ByteOrder.LITTLE_ENDIAN);
    }
}
