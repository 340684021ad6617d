package dev.ferry.device.partition;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.CopyRoute;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.memory.DeviceBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The partitioning driver on the simulated backend's chosen kernels (the emulation): an int key with
 * nulls over several histogram chunks lands as the Java reference says, rows in input order; inputs
 * too small for their row count, keys of the wrong layout and zero partitions are refused before any
 * kernel runs; only size words cross to the host.
 */
class TestDeviceHashPartitioning
{
    private static DeviceRuntime runtime;

    @BeforeAll
    static void start()
    {
        runtime = DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "simulated", "spark.ferry.device.simulated.capacity", "32m")));
    }

    @AfterAll
    static void stop()
    {
        runtime.close();
    }

    @Test
    void anIntKeyWithNullsLandsAsTheReferenceSays()
    {
        int rows = 3000;
        int partitions = 11;
        Random random = new Random(7);
        byte[] validity = new byte[(rows + 7) / 8];
        ByteBuffer values = ByteBuffer.allocate(4 * rows).order(ByteOrder.LITTLE_ENDIAN);
        int nulls = 0;
        for (int row = 0; row < rows; row++) {
            values.putInt(random.nextInt());
            if (random.nextInt(5) != 0) {
                validity[row >> 3] |= (byte) (1 << (row & 7));
            }
            else {
                nulls++;
            }
        }
        DevicePartitioners.Choice choice = DevicePartitioners.choose(runtime, 0);
        assertTrue(choice.partitioner().orElseThrow() instanceof EmulatedPartitioner, choice.reason());
        int[] expected = PartitionReference.stableOrder(PartitionReference.partitionIds(
                List.of(new PartitionReference.HostKey(PartitionKeyKind.INT32, validity, values.array(), null)), rows, partitions), partitions);
        try (DeviceStream stream = runtime.newStream(0); DeviceBuffer validityBuffer = upload(stream, validity); DeviceBuffer valueBuffer = upload(stream, values.array())) {
            long toHost = runtime.bytesCopied(CopyRoute.DEVICE_TO_HOST);
            DeviceHashPartitioning partitioning = new DeviceHashPartitioning(choice.partitioner().get(), runtime.deviceAllocator(0), stream);
            PartitionColumn column = new PartitionColumn("k", PartitionColumn.Layout.FIXED, 4, validityBuffer, null, valueBuffer, nulls);
            List<DeviceHashPartitioning.Partition> parts = partitioning.partition(List.of(column), List.of(new PartitionKey(0, PartitionKeyKind.INT32)), rows, partitions);
            assertEquals(4L * (partitions + 1) + 4 + 4L * partitions, runtime.bytesCopied(CopyRoute.DEVICE_TO_HOST) - toHost, "size words only");
            int next = 0;
            int nullsSeen = 0;
            for (DeviceHashPartitioning.Partition part : parts) {
                PartitionedColumn out = part.columns().get(0);
                byte[] got = download(stream, out.buffers().get(1), 4 * part.rows());
                ByteBuffer gotValues = ByteBuffer.wrap(got).order(ByteOrder.LITTLE_ENDIAN);
                for (int i = 0; i < part.rows(); i++) {
                    assertEquals(values.getInt(4 * expected[next + i]), gotValues.getInt(4 * i), "row " + i + " of a partition");
                }
                next += part.rows();
                nullsSeen += out.nullCount();
                out.buffers().forEach(DeviceBuffer::close);
            }
            assertEquals(rows, next);
            assertEquals(nulls, nullsSeen);
        }
        assertEquals(0, runtime.deviceAllocator(0).allocatedBytes(), "every device buffer is freed");
    }

    @Test
    void badInputsAreRefusedBeforeAnyKernel()
    {
        try (DeviceStream stream = runtime.newStream(0); DeviceBuffer small = runtime.deviceAllocator(0).allocate(16)) {
            DeviceHashPartitioning partitioning = new DeviceHashPartitioning(new EmulatedPartitioner(), runtime.deviceAllocator(0), stream);
            PartitionColumn column = new PartitionColumn("k", PartitionColumn.Layout.FIXED, 8, null, null, small, 0);
            IllegalArgumentException tooSmall = assertThrows(IllegalArgumentException.class,
                    () -> partitioning.partition(List.of(column), List.of(new PartitionKey(0, PartitionKeyKind.INT64)), 3, 4));
            assertTrue(tooSmall.getMessage().contains("column k"), tooSmall.getMessage());
            IllegalArgumentException wrongKind = assertThrows(IllegalArgumentException.class,
                    () -> partitioning.partition(List.of(column), List.of(new PartitionKey(0, PartitionKeyKind.INT32)), 2, 4));
            assertTrue(wrongKind.getMessage().contains("not a INT32 column"), wrongKind.getMessage());
            assertThrows(IllegalArgumentException.class, () -> partitioning.partition(List.of(column), List.of(new PartitionKey(0, PartitionKeyKind.INT64)), 2, 0));
        }
        assertEquals(0, runtime.deviceAllocator(0).allocatedBytes());
    }

    private static DeviceBuffer upload(DeviceStream stream, byte[] bytes)
    {
        DeviceBuffer buffer = runtime.deviceAllocator(0).allocate(Math.max(8, (bytes.length + 7) & ~7L));
        stream.copyFromHost(ByteBuffer.allocateDirect(bytes.length).put(bytes).flip(), buffer, 0);
        stream.synchronize();
        return buffer;
    }

    private static byte[] download(DeviceStream stream, DeviceBuffer buffer, int length)
    {
        ByteBuffer host = ByteBuffer.allocateDirect(length);
        stream.copyToHost(buffer, 0, host);
        stream.synchronize();
        byte[] bytes = new byte[length];
        host.flip().get(bytes);
        return bytes;
    }
}
