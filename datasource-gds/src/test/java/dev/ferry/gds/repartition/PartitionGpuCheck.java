package dev.ferry.gds.repartition;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.kernel.KernelAvailability;
import dev.ferry.device.kernel.KernelProbe;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.device.partition.DevicePartitioners;
import dev.ferry.gds.device.DeviceBatch;
import dev.ferry.gds.device.DeviceTarget;
import org.apache.spark.sql.types.StructField;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The gpu-check stage {@code partition} (not in the build's suites: its name matches no test
 * pattern): on the cuda backend {@code spark_partition.cu} runs on the GPU (NVRTC, driver API)
 * through {@link DeviceBatchRepartitioner}; every key kind and a two-key case must equal the Java
 * reference (partition ids, input order within partitions, every column byte for byte), then the
 * repartition of a larger batch is timed (rows/s and GB/s of input column bytes) beside this
 * device's D2D copy rate measured in the same run. {@code -Dferry.partition.check.device} picks the
 * device (a CUDA ordinal, or {@code last}: the runtime's last device; default 0), so a multi-GPU
 * machine checks that the kernels load and run on a device other than 0. Skipped, with the reason, where the kernels
 * cannot run (the simulated dry run).
 */
public class PartitionGpuCheck
{
    private static final List<StructField> FIELDS = RandomBatch.EVERY_KEY_KIND;

    @Test
    public void cudaPartitionKernelsEqualTheReference()
    {
        // -Dferry.partition.check.backend=simulated runs the same check on the emulation here (a dry run of this class).
        String backend = System.getProperty("ferry.partition.check.backend", "cuda");
        if (backend.equals("cuda")) {
            // Before the runtime: spark.ferry.device=cuda refuses to start where CUDA is missing, and the dry run has none.
            KernelAvailability kernels = KernelProbe.availability();
            if (!kernels.available()) {
                System.out.println("partition: unavailable: CUDA kernels unavailable: " + kernels.reason());
            }
            assumeTrue(kernels.available(), () -> "partition: CUDA kernels unavailable: " + kernels.reason());
        }
        try (DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", backend, "spark.ferry.device.simulated.capacity", "1g")))) {
            assumeTrue(backend.equals(runtime.backendName()), "the " + backend + " backend did not start: " + runtime.selectionReason());
            int device = device(runtime);
            System.out.println("partition: device " + device + " of " + runtime.deviceCount());
            DevicePartitioners.Choice choice = DevicePartitioners.choose(runtime, device);
            choice.partitioner().ifPresentOrElse(partitioner -> System.out.println("partition: kernels " + partitioner.describe()),
                    () -> System.out.println("partition: unavailable: " + choice.reason()));
            assumeTrue(choice.partitioner().isPresent(), () -> "partition: " + choice.reason());
            try (DeviceStream stream = runtime.newStream(device)) {
                DeviceTarget target = new DeviceTarget(runtime, device, stream);
                DeviceBatchRepartitioner repartitioner = new DeviceBatchRepartitioner(target, choice.partitioner().get());
                Random random = new Random(18);
                int cases = 0;
                for (int key = 0; key < FIELDS.size(); key++) {
                    RandomBatch.generate(random, 5000, FIELDS).checkRepartition(repartitioner, target, new int[] {key}, 17);
                    cases++;
                }
                RandomBatch.generate(random, 70_000, FIELDS).checkRepartition(repartitioner, target, new int[] {2, 0}, 200);
                cases++;
                System.out.println("partition: PASS " + cases + " cases equal the Java reference (ids, order, bytes)");
                throughput(runtime, repartitioner, target, random);
            }
            assertEquals(0, runtime.deviceAllocator(device).allocatedBytes(), "every device buffer of device " + device + " is freed");
        }
    }

    private static int device(DeviceRuntime runtime)
    {
        String requested = System.getProperty("ferry.partition.check.device", "0");
        int device = requested.equals("last") ? runtime.deviceCount() - 1 : Integer.parseInt(requested);
        if (device < 0 || device >= runtime.deviceCount()) {
            throw new IllegalArgumentException("ferry.partition.check.device=" + requested + " is not one of the runtime's " + runtime.deviceCount() + " devices");
        }
        return device;
    }

    private static void throughput(DeviceRuntime runtime, DeviceBatchRepartitioner repartitioner, DeviceTarget target, Random random)
    {
        int rows = Integer.getInteger("ferry.partition.check.rows", 1 << 21);
        int partitions = 64;
        List<StructField> fields = List.of(FIELDS.get(0), FIELDS.get(1), FIELDS.get(2), FIELDS.get(5));
        RandomBatch input = RandomBatch.generate(random, rows, fields);
        try (DeviceBatch batch = input.upload(target)) {
            long bytes = batch.bytes();
            double best = Double.MAX_VALUE;
            for (int run = 0; run < 4; run++) {
                long began = System.nanoTime();
                List<DeviceBatch> outputs = repartitioner.repartition(batch, new int[] {0, 2}, partitions);
                double seconds = (System.nanoTime() - began) / 1e9;
                outputs.forEach(DeviceBatch::close);
                // The first run compiles nothing (the cases above did) but warms the allocator; keep the best.
                best = Math.min(best, seconds);
            }
            System.out.printf("partition: %d rows x %d columns (%d bytes) into %d partitions by (i, s): best of 4 %.4f s, %.1f Mrows/s, %.3f GB/s%n",
                    rows, fields.size(), bytes, partitions, best, rows / best / 1e6, bytes / best / 1e9);
            System.out.printf("partition: D2D copy on this device: %.3f GB/s (the rate a gather of the same bytes is measured against)%n", copyRate(runtime, target, bytes));
        }
    }

    private static double copyRate(DeviceRuntime runtime, DeviceTarget target, long bytes)
    {
        try (DeviceBuffer source = runtime.deviceAllocator(target.device()).allocate(bytes); DeviceBuffer copy = runtime.deviceAllocator(target.device()).allocate(bytes)) {
            double best = Double.MAX_VALUE;
            for (int run = 0; run < 5; run++) {
                long began = System.nanoTime();
                target.stream().copy(source, 0, copy, 0, bytes);
                target.stream().synchronize();
                best = Math.min(best, (System.nanoTime() - began) / 1e9);
            }
            return bytes / best / 1e9;
        }
    }
}
