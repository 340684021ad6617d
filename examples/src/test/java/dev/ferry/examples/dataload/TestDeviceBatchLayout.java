package dev.ferry.examples.dataload;

import java.util.Map;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.gds.device.ArrowDeviceArrayLayout;
import dev.ferry.gds.device.ArrowDeviceArrayView;
import dev.ferry.gds.device.DeviceBatch;
import dev.ferry.gds.device.DeviceBatchExport;
import dev.ferry.gds.device.DeviceBatchUploader;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A batch through the simulated device and out as an ArrowDeviceArray, read back only through the struct's offsets. */
class TestDeviceBatchLayout
{
    private static final StructType SCHEMA = new StructType()
            .add("id", DataTypes.LongType)
            .add("quantity", DataTypes.IntegerType)
            .add("price", DataTypes.DoubleType)
            .add("comment", DataTypes.StringType);

    @Test
    void consumerReadsEveryValueAndNullThroughTheDeviceArrayLayout()
    {
        int rows = 5;
        OnHeapColumnVector id = new OnHeapColumnVector(rows, DataTypes.LongType);
        OnHeapColumnVector quantity = new OnHeapColumnVector(rows, DataTypes.IntegerType);
        OnHeapColumnVector price = new OnHeapColumnVector(rows, DataTypes.DoubleType);
        OnHeapColumnVector comment = new OnHeapColumnVector(rows, DataTypes.StringType);
        String[] comments = {"a", "", null, "héllo", "zz"};
        for (int row = 0; row < rows; row++) {
            id.putLong(row, 1L << (40 + row));
            if (row == 1) {
                quantity.putNull(row);
                price.putNull(row);
            }
            else {
                quantity.putInt(row, -row * 7);
                price.putDouble(row, row + 0.25);
            }
            if (comments[row] == null) {
                comment.putNull(row);
            }
            else {
                comment.putByteArray(row, comments[row].getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
        }
        ColumnarBatch batch = new ColumnarBatch(new ColumnVector[] {id, quantity, price, comment}, rows);
        try (DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "simulated")))) {
            assertEquals("simulated", runtime.backendName());
            long fallbacksBefore = DeviceBatchExport.hostFallbacks();
            try (DeviceBatch onDevice = new DeviceBatchUploader(runtime, 1).upload(batch, SCHEMA);
                    DeviceBatchExport export = DeviceBatchExport.export(runtime, onDevice)) {
                assertTrue(onDevice.columns().get(0).buffers().get(1).location().isDevice(), "the values must sit in (simulated) device memory");
                assertEquals(1, onDevice.device());
                // The simulated backend lends no device address: a host copy, said and counted.
                assertEquals(fallbacksBefore + 1, DeviceBatchExport.hostFallbacks());
                assertTrue(export.reason().contains("simulated"), export.reason());

                ArrowDeviceArrayView view = new ArrowDeviceArrayView(export.address());
                assertEquals(ArrowDeviceArrayLayout.ARROW_DEVICE_CPU, view.deviceType());
                assertEquals(-1, view.deviceId());
                ArrowDeviceArrayView.Array parent = view.array();
                assertEquals(rows, parent.length());
                assertEquals(4, parent.childCount());
                assertEquals(1, parent.bufferCount());
                assertEquals(0, parent.buffer(0), "a struct parent without nulls has no validity buffer");

                ArrowDeviceArrayView.Array ids = parent.child(0);
                ArrowDeviceArrayView.Array quantities = parent.child(1);
                ArrowDeviceArrayView.Array prices = parent.child(2);
                ArrowDeviceArrayView.Array strings = parent.child(3);
                assertEquals(2, ids.bufferCount());
                assertEquals(3, strings.bufferCount());
                assertEquals(1, quantities.nullCount());
                assertEquals(1, strings.nullCount());
                for (int row = 0; row < rows; row++) {
                    assertEquals(1L << (40 + row), ids.int64(1, row));
                    assertEquals(row != 1, quantities.isValid(row));
                    assertEquals(row != 1, prices.isValid(row));
                    if (row != 1) {
                        assertEquals(-row * 7, quantities.int32(1, row));
                        assertEquals(row + 0.25, prices.float64(1, row));
                    }
                    assertEquals(comments[row] != null, strings.isValid(row));
                    assertEquals(comments[row] == null ? "" : comments[row], strings.utf8(row));
                }

                // The C Data Interface's ownership protocol: a consumer releases through the struct's own callback.
                assertFalse(view.released(), "an exported array must carry a release callback (NULL means released)");
                assertFalse(ids.released());
                view.release();
                assertTrue(export.released());
                assertTrue(view.released());
            }
        }
        finally {
            batch.close();
        }
    }

    @Test
    void closeReleasesAnArrayNoConsumerReleased()
    {
        OnHeapColumnVector ids = new OnHeapColumnVector(3, DataTypes.LongType);
        for (int row = 0; row < 3; row++) {
            ids.putLong(row, row);
        }
        ColumnVector[] vectors = {ids};
        StructType schema = new StructType().add("id", DataTypes.LongType);
        ColumnarBatch batch = new ColumnarBatch(vectors, 3);
        try (DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "simulated")))) {
            DeviceBatchExport export;
            try (DeviceBatch onDevice = new DeviceBatchUploader(runtime, 0).upload(batch, schema)) {
                export = DeviceBatchExport.export(runtime, onDevice);
                assertFalse(export.released());
                export.close();
            }
            assertTrue(export.released());
            assertThrows(IllegalStateException.class, export::address);
            export.close();
        }
        finally {
            batch.close();
        }
    }

    @Test
    void refusesColumnTypesItDoesNotLayOut()
    {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> DeviceBatchUploader.checkSchema(new StructType().add("amount", DataTypes.createDecimalType(12, 2))));
        assertTrue(error.getMessage().contains("amount"), error.getMessage());
        assertFalse(DeviceBatchUploader.SUPPORTED.contains(DataTypes.BinaryType));
    }
}
