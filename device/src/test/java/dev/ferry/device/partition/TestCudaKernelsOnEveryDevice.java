package dev.ferry.device.partition;

import dev.ferry.common.FerryException;
import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.cuda.DevicePointers;
import dev.ferry.device.kernel.KernelAvailability;
import dev.ferry.device.kernel.KernelLauncher;
import dev.ferry.device.kernel.KernelProbe;
import dev.ferry.device.kernel.KernelSource;
import dev.ferry.device.kernel.LoadedKernel;
import dev.ferry.device.memory.DeviceBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The partition kernels on every GPU of the machine, not only device 0 (issue 17 item 3): on the
 * {@code cuda} backend each device gets its own {@link CudaPartitioner} (modules loaded into that
 * device's primary context), which partitions an int key with nulls as the Java reference says, also
 * when launched from a thread that never made any device current; a launcher's device, once
 * released, refuses its old kernels by name and loads again on the next use. Skipped, with the probe's
 * reason, where CUDA kernels cannot run (the build machine); gpu-check's contract stage runs it on the GPU.
 */
class TestCudaKernelsOnEveryDevice
{
    private static final KernelAvailability KERNELS = KernelProbe.availability();
    private static DeviceRuntime runtime;

    @BeforeAll
    static void start()
    {
        // The runtime refuses spark.ferry.device=cuda where CUDA is missing: built only where the kernels can run;
        // each test then reports its own skip with the probe's reason.
        if (KERNELS.available()) {
            runtime = DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "cuda")));
        }
    }

    private static void assumeKernels()
    {
        assumeTrue(KERNELS.available(), () -> "CUDA kernels unavailable: " + KERNELS.reason());
    }

    @AfterAll
    static void stop()
    {
        if (runtime != null) {
            runtime.close();
        }
    }

    @Test
    void eachDevicePartitionsWithItsOwnKernels()
            throws InterruptedException
    {
        assumeKernels();
        for (int device = 0; device < runtime.deviceCount(); device++) {
            DevicePartitioners.Choice choice = DevicePartitioners.choose(runtime, device);
            DevicePartitioner partitioner = assertInstanceOf(CudaPartitioner.class, choice.partitioner().orElse(null), choice.reason());
            assertTrue(partitioner.describe().endsWith("device " + device), partitioner.describe());
            partitionAndCompare(device, partitioner, 3000, 11);
            // A task thread that never made a device current: the launch must make the kernel's own device current.
            AtomicReference<Throwable> failure = new AtomicReference<>();
            int onDevice = device;
            Thread task = new Thread(() -> {
                try {
                    partitionAndCompare(onDevice, partitioner, 5000, 7);
                }
                catch (Throwable t) {
                    failure.set(t);
                }
            }, "fresh-task-thread-device-" + device);
            task.start();
            task.join();
            assertNull(failure.get(), () -> "launch from a fresh thread on device " + onDevice + ": " + failure.get());
        }
        DevicePartitioners.Choice outside = DevicePartitioners.choose(runtime, runtime.deviceCount());
        assertTrue(outside.partitioner().isEmpty() && outside.reason().contains("is not one of"), outside.reason());
    }

    @Test
    void aReleasedDeviceRefusesItsOldKernelsAndLoadsAgain()
    {
        assumeKernels();
        int device = runtime.deviceCount() - 1;
        KernelSource source = KernelSource.load("spark_partition.cu");
        try (KernelLauncher launcher = new KernelLauncher(); DeviceStream stream = runtime.newStream(device); DeviceBuffer words = runtime.deviceAllocator(device).allocate(4 * 64)) {
            LoadedKernel clear = launcher.load(device, source, "ferry_partition_clear");
            assertEquals(device, clear.device());
            assertEquals(1, launcher.moduleCount(device));
            fill(stream, words);
            clear.launchAndWait(1, 64, 64, DevicePointers.address(words));
            assertEquals(0, sum(stream, words), "the kernel cleared every word on device " + device);

            launcher.release(device);
            assertEquals(0, launcher.moduleCount(device));
            FerryException stale = assertThrows(FerryException.class, () -> clear.launchAndWait(1, 64, 64, DevicePointers.address(words)));
            assertTrue(stale.getMessage().contains("device " + device) && stale.getMessage().contains("released"), stale.getMessage());

            LoadedKernel reloaded = launcher.load(device, source, "ferry_partition_clear");
            fill(stream, words);
            reloaded.launchAndWait(1, 64, 64, DevicePointers.address(words));
            assertEquals(0, sum(stream, words));
            assertEquals(1, launcher.moduleCount(device));
        }
    }

    private static void partitionAndCompare(int device, DevicePartitioner partitioner, int rows, int partitions)
    {
        Random random = new Random(rows);
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
        int[] expected = PartitionReference.stableOrder(PartitionReference.partitionIds(
                List.of(new PartitionReference.HostKey(PartitionKeyKind.INT32, validity, values.array(), null)), rows, partitions), partitions);
        try (DeviceStream stream = runtime.newStream(device); DeviceBuffer validityBuffer = upload(device, stream, validity); DeviceBuffer valueBuffer = upload(device, stream, values.array())) {
            DeviceHashPartitioning partitioning = new DeviceHashPartitioning(partitioner, runtime.deviceAllocator(device), stream);
            PartitionColumn column = new PartitionColumn("k", PartitionColumn.Layout.FIXED, 4, validityBuffer, null, valueBuffer, nulls);
            List<DeviceHashPartitioning.Partition> parts = partitioning.partition(List.of(column), List.of(new PartitionKey(0, PartitionKeyKind.INT32)), rows, partitions);
            int next = 0;
            int nullsSeen = 0;
            for (DeviceHashPartitioning.Partition part : parts) {
                PartitionedColumn out = part.columns().get(0);
                ByteBuffer got = download(stream, out.buffers().get(1), 4 * part.rows());
                for (int i = 0; i < part.rows(); i++) {
                    assertEquals(values.getInt(4 * expected[next + i]), got.getInt(4 * i), "row " + i + " of a partition on device " + device);
                }
                next += part.rows();
                nullsSeen += out.nullCount();
                out.buffers().forEach(DeviceBuffer::close);
            }
            assertEquals(rows, next);
            assertEquals(nulls, nullsSeen);
        }
        assertEquals(0, runtime.deviceAllocator(device).allocatedBytes(), "every buffer of device " + device + " is freed");
    }

    private static void fill(DeviceStream stream, DeviceBuffer words)
    {
        ByteBuffer ones = ByteBuffer.allocateDirect((int) words.length());
        while (ones.hasRemaining()) {
            ones.put((byte) 0xff);
        }
        stream.copyFromHost(ones.flip(), words, 0);
        stream.synchronize();
    }

    private static long sum(DeviceStream stream, DeviceBuffer words)
    {
        ByteBuffer host = download(stream, words, (int) words.length());
        long sum = 0;
        while (host.hasRemaining()) {
            sum += host.get() & 0xff;
        }
        return sum;
    }

    private static DeviceBuffer upload(int device, DeviceStream stream, byte[] bytes)
    {
        DeviceBuffer buffer = runtime.deviceAllocator(device).allocate(Math.max(8, (bytes.length + 7) & ~7L));
        stream.copyFromHost(ByteBuffer.allocateDirect(bytes.length).put(bytes).flip(), buffer, 0);
        stream.synchronize();
        return buffer;
    }

    private static ByteBuffer download(DeviceStream stream, DeviceBuffer buffer, int length)
    {
        ByteBuffer host = ByteBuffer.allocateDirect(Math.max(length, 1));
        host.limit(length);
        if (length > 0) {
            stream.copyToHost(buffer, 0, host);
            stream.synchronize();
        }
        return host.rewind().order(ByteOrder.LITTLE_ENDIAN);
    }
}
