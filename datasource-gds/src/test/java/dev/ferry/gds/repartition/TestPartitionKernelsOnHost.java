package dev.ferry.gds.repartition;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.gds.device.DeviceTarget;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code spark_partition.cu} itself, compiled for the host by {@code c++} and run once per (block,
 * thread) of the grids the GPU gets ({@link HostCompiledPartitioner}, on the decoder tests' harness):
 * every key kind, nulls, several keys, batches over several histogram chunks, against the Java
 * reference's partition ids and stable order, and every column gathered byte for byte. Skipped
 * without {@code c++}.
 */
class TestPartitionKernelsOnHost
{
    @TempDir
    static Path build;
    private static DeviceRuntime runtime;

    @BeforeAll
    static void start()
            throws Exception
    {
        assumeTrue(HostCompiledPartitioner.build(build).isPresent(), "no c++ on PATH: spark_partition.cu was not run on the host");
        runtime = DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "simulated", "spark.ferry.device.simulated.capacity", "64m")));
    }

    @AfterAll
    static void stop()
    {
        if (runtime != null) {
            runtime.close();
        }
    }

    // Every key kind, the last without nulls (a column with no validity to gather).
    private static final List<StructField> FIELDS = RandomBatch.EVERY_KEY_KIND.stream()
            .map(field -> field.name().equals("x") ? DataTypes.createStructField("x", DataTypes.DoubleType, false) : field)
            .toList();

    @Test
    void everyKeyKindMatchesTheReference()
    {
        Random random = new Random(18_5);
        for (int key = 0; key < FIELDS.size(); key++) {
            check(random, 700, new int[] {key}, 7);
        }
    }

    @Test
    void severalKeysAndChunksMatchTheReference()
    {
        // 2500 rows: three histogram chunks of 1024, so the scatter's chunk cursors are exercised.
        check(new Random(42), 2500, new int[] {2, 0, 6}, 13);
        check(new Random(43), 2500, new int[] {8, 9, 1, 7}, 1);
        check(new Random(44), 0, new int[] {0}, 5);
    }

    private static void check(Random random, int rows, int[] keys, int partitions)
    {
        RandomBatch input = RandomBatch.generate(random, rows, FIELDS);
        try (DeviceStream stream = runtime.newStream(0); HostCompiledPartitioner kernels = new HostCompiledPartitioner()) {
            DeviceTarget target = new DeviceTarget(runtime, 0, stream);
            input.checkRepartition(new DeviceBatchRepartitioner(target, kernels), target, keys, partitions);
            assertTrue(rows == 0 || kernels.launches() > 0, "the host-compiled kernels ran");
            assertEquals(0, kernels.allocatedBytes(), "host kernel memory freed");
        }
        assertEquals(0, runtime.deviceAllocator(0).allocatedBytes(), "every device buffer is freed");
    }
}
