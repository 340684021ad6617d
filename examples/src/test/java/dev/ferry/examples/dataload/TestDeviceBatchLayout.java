package dev.ferry.examples.dataload;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.gds.device.ArrowDeviceArrayLayout;
import dev.ferry.gds.device.ArrowDeviceArrayView;
import dev.ferry.gds.device.ArrowDeviceUpload;
import dev.ferry.gds.device.DeviceBatch;
import dev.ferry.gds.device.DeviceBatchExport;
import dev.ferry.gds.device.DeviceColumn;
import dev.ferry.gds.device.DeviceTarget;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Arrow columns in simulated device memory, out as an ArrowDeviceArray, read back only through the struct's offsets. */
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
        String[] comments = {"a", "", null, "héllo", "zz"};
        try (RootAllocator allocator = new RootAllocator();
                BigIntVector id = new BigIntVector("id", allocator);
                IntVector quantity = new IntVector("quantity", allocator);
                Float8Vector price = new Float8Vector("price", allocator);
                VarCharVector comment = new VarCharVector("comment", allocator);
                DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "simulated")))) {
            for (int row = 0; row < rows; row++) {
                id.setSafe(row, 1L << (40 + row));
                if (row == 1) {
                    quantity.setNull(row);
                    price.setNull(row);
                }
                else {
                    quantity.setSafe(row, -row * 7);
                    price.setSafe(row, row + 0.25);
                }
                if (comments[row] == null) {
                    comment.setNull(row);
                }
                else {
                    comment.setSafe(row, comments[row].getBytes(java.nio.charset.StandardCharsets.UTF_8));
                }
            }
            for (FieldVector vector : List.<FieldVector>of(id, quantity, price, comment)) {
                vector.setValueCount(rows);
            }
            assertEquals("simulated", runtime.backendName());
            long fallbacksBefore = DeviceBatchExport.hostFallbacks();
            try (DeviceBatch onDevice = onDevice(runtime, 1, rows, List.of(id, quantity, price, comment));
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
    }

    @Test
    void closeReleasesAnArrayNoConsumerReleased()
    {
        try (RootAllocator allocator = new RootAllocator();
                BigIntVector ids = new BigIntVector("id", allocator);
                DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "simulated")))) {
            for (int row = 0; row < 3; row++) {
                ids.setSafe(row, row);
            }
            ids.setValueCount(3);
            DeviceBatchExport export;
            try (DeviceBatch onDevice = onDevice(runtime, 0, 3, List.of(ids))) {
                export = DeviceBatchExport.export(runtime, onDevice);
                assertFalse(export.released());
                export.close();
            }
            assertTrue(export.released());
            assertThrows(IllegalStateException.class, export::address);
            export.close();
        }
    }

    /** The vectors' buffers copied into {@code device}'s memory as a device batch, the layout every device decoder writes. */
    private static DeviceBatch onDevice(DeviceRuntime runtime, int device, int rows, List<FieldVector> vectors)
    {
        List<DeviceColumn> columns = new ArrayList<>();
        try (DeviceStream stream = runtime.newStream(device)) {
            DeviceTarget target = new DeviceTarget(runtime, device, stream);
            for (FieldVector vector : vectors) {
                columns.add(ArrowDeviceUpload.upload(vector, SCHEMA.apply(vector.getName()).dataType(), target));
            }
            stream.synchronize();
        }
        return new DeviceBatch(device, rows, columns);
    }

    @Test
    void refusesColumnsWithoutAFlatLayout()
    {
        try (RootAllocator allocator = new RootAllocator();
                ListVector amounts = ListVector.empty("amounts", allocator)) {
            amounts.setValueCount(0);
            IllegalArgumentException error = assertThrows(IllegalArgumentException.class, () -> ArrowDeviceUpload.lengths(amounts));
            assertTrue(error.getMessage().contains("amounts") && error.getMessage().contains("flat"), error.getMessage());
        }
    }
}
