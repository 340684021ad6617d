package dev.ferry.repartition;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.device.pool.DeviceMemoryPool;
import dev.ferry.gds.device.DeviceBatch;
import dev.ferry.gds.device.DeviceColumn;
import dev.ferry.shuffle.transport.ipc.DeviceLanding;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A map task's pieces for one output partition go into one device block and come back out as the
 * same batches: every buffer byte for byte at a 64-byte aligned offset, rows, names, types and null
 * counts kept, the unpacked buffers slices of the block (no copy, alive after the block's own
 * handle closes). A layout whose buffer does not lie in the block is refused naming the column.
 */
class TestPiecePacking
{
    @Test
    void packedPiecesUnpackToTheSameBatches()
    {
        try (DeviceRuntime runtime = simulated(); DeviceMemoryPool pool = new DeviceMemoryPool(runtime, 0, 4L << 20, 100); DeviceStream stream = runtime.newStream(0)) {
            DeviceLanding landing = new DeviceLanding(runtime, pool);
            Random random = new Random(20261204);
            List<DeviceBatch> batches = List.of(batch(runtime, stream, random, 37), batch(runtime, stream, random, 1000));
            PiecePacking.Packed packed;
            try {
                packed = PiecePacking.pack(batches, landing, stream);
                assertEquals(1037, packed.layout().rows());
                for (PieceLayout.BatchLayout batch : packed.layout().batches()) {
                    for (PieceLayout.ColumnLayout column : batch.columns()) {
                        for (long offset : column.offsets()) {
                            assertEquals(0, offset % PiecePacking.ALIGNMENT, column.toString());
                        }
                    }
                }
                List<DeviceBatch> unpacked;
                long before = pool.allocatedBytes();
                try (DeviceBuffer block = packed.block()) {
                    unpacked = PiecePacking.unpack(block, packed.layout(), 0, "test block");
                    assertEquals(before, pool.allocatedBytes(), "unpacked batches are slices, not copies");
                }
                try {
                    assertEquals(batches.size(), unpacked.size());
                    for (int b = 0; b < batches.size(); b++) {
                        assertSame(runtime, batches.get(b), unpacked.get(b));
                    }
                }
                finally {
                    unpacked.forEach(DeviceBatch::close);
                }
                assertEquals(0, pool.allocatedBytes(), "the block's memory goes with its last slice");
            }
            finally {
                batches.forEach(DeviceBatch::close);
            }
        }
    }

    @Test
    void aLayoutOutsideTheBlockIsRefusedNamingTheColumn()
    {
        try (DeviceRuntime runtime = simulated(); DeviceMemoryPool pool = new DeviceMemoryPool(runtime, 0, 1L << 20, 100)) {
            PieceLayout.ColumnLayout column = new PieceLayout.ColumnLayout("price", DataTypes.LongType, 0, new long[] {0, 64}, new long[] {2, 4096});
            PieceLayout layout = new PieceLayout(List.of(new PieceLayout.BatchLayout(512, List.of(column))), 128);
            try (DeviceBuffer block = pool.allocate(128)) {
                IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> PiecePacking.unpack(block, layout, 0, "block 3 of map 1"));
                assertTrue(refused.getMessage().contains("block 3 of map 1") && refused.getMessage().contains("column price"), refused.getMessage());
            }
            assertEquals(0, pool.allocatedBytes(), "no slice left open");
        }
    }

    private static void assertSame(DeviceRuntime runtime, DeviceBatch expected, DeviceBatch actual)
    {
        assertEquals(expected.rows(), actual.rows());
        assertEquals(expected.columns().size(), actual.columns().size());
        for (int c = 0; c < expected.columns().size(); c++) {
            DeviceColumn want = expected.columns().get(c);
            DeviceColumn got = actual.columns().get(c);
            assertEquals(want.name(), got.name());
            assertEquals(want.type(), got.type());
            assertEquals(want.nullCount(), got.nullCount());
            assertEquals(want.lengths(), got.lengths());
            for (int i = 0; i < want.buffers().size(); i++) {
                int length = Math.toIntExact(want.lengths().get(i));
                assertArrayEquals(host(runtime, want.buffers().get(i), length), host(runtime, got.buffers().get(i), length), want.name() + " buffer " + i);
            }
        }
    }

    /** An int column (validity, values) and a string column (validity, offsets, values) of {@code rows} random rows. */
    private static DeviceBatch batch(DeviceRuntime runtime, DeviceStream stream, Random random, int rows)
    {
        int validityBytes = (rows + 7) / 8;
        byte[] validity = new byte[validityBytes];
        random.nextBytes(validity);
        byte[] values = new byte[rows * 4];
        random.nextBytes(values);
        byte[] offsets = new byte[(rows + 1) * 4];
        ByteBuffer offsetView = ByteBuffer.wrap(offsets).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        int total = 0;
        for (int row = 0; row <= rows; row++) {
            offsetView.putInt(row * 4, total);
            total += random.nextInt(9);
        }
        byte[] chars = new byte[total];
        random.nextBytes(chars);
        List<DeviceColumn> columns = new ArrayList<>();
        columns.add(new DeviceColumn("k", DataTypes.IntegerType, 3, List.of(upload(runtime, stream, validity), upload(runtime, stream, values)),
                List.of((long) validity.length, (long) values.length)));
        columns.add(new DeviceColumn("s", DataTypes.StringType, 5, List.of(upload(runtime, stream, validity), upload(runtime, stream, offsets), upload(runtime, stream, chars)),
                List.of((long) validity.length, (long) offsets.length, (long) chars.length)));
        return new DeviceBatch(0, rows, columns);
    }

    private static DeviceBuffer upload(DeviceRuntime runtime, DeviceStream stream, byte[] bytes)
    {
        DeviceBuffer buffer = runtime.deviceAllocator(0).allocate(Math.max(8, (bytes.length + 7) / 8 * 8));
        if (bytes.length > 0) {
            stream.copyFromHost(ByteBuffer.wrap(bytes), buffer, 0);
            stream.synchronize();
        }
        return buffer;
    }

    private static byte[] host(DeviceRuntime runtime, DeviceBuffer buffer, int length)
    {
        ByteBuffer copy = ByteBuffer.allocate(length);
        if (length > 0) {
            try (DeviceStream stream = runtime.newStream(0)) {
                stream.copyToHost(buffer, 0, copy);
                stream.synchronize();
            }
        }
        return copy.array();
    }

    private static DeviceRuntime simulated()
    {
        return DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "simulated", "spark.ferry.device.simulated.capacity", "16m")));
    }
}
