package dev.ferry.gds.api;

import dev.ferry.gds.TestingSpark;
import dev.ferry.gds.decode.cuda.DeviceKernelsLoader;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A gpu-check stage for {@link DeviceBatches} on the {@code cuda} backend (not in the build's suites:
 * its name matches no test pattern; never run yet): a Spark-written sample read as device batches,
 * decoded by the CUDA kernels into GPU memory and handed over as {@code ARROW_DEVICE_CUDA} arrays with
 * device pointers, no host copy on the way (the decoded bytes all in device memory, none copied back
 * for the consumer). The values themselves are compared byte for byte by the {@code device-decode}
 * stage; this one checks the whole hand-over on a GPU. Skipped, with the reason, where the kernels
 * cannot run.
 */
public class DeviceBatchesGpuCheck
{
    @Test
    public void deviceBatchesReachTheConsumerAsCudaArrays(@TempDir Path directory)
    {
        Optional<String> unavailable = DeviceKernelsLoader.unavailableReason();
        unavailable.ifPresent(reason -> System.out.println("device batches: unavailable: " + reason));
        assumeTrue(unavailable.isEmpty(), () -> "device batches: " + unavailable.orElse(""));
        SparkSession spark = TestingSpark.start();
        try {
            String path = directory.resolve("sample").toString();
            spark.range(0, 200_000, 1, 2)
                    .selectExpr("id", "CASE WHEN id % 17 = 0 THEN NULL ELSE CAST(id % 1000 AS INT) END AS quantity",
                            "CASE WHEN id % 13 = 0 THEN NULL ELSE CAST(id % 10007 AS DOUBLE) / 8 END AS price",
                            "CASE WHEN id % 7 = 0 THEN NULL ELSE concat('item-', CAST(id % 977 AS STRING)) END AS comment")
                    .write().parquet(path);
            DeviceBatches.DeviceScan scan = DeviceBatches.scan(spark, path, List.of(), Map.of("spark.ferry.device", "cuda"));
            System.out.println("device batches: " + scan.description());
            List<PartitionResult<Long>> results = scan.forEachPartition(partition -> {
                long rows = 0;
                Optional<ExportedDeviceBatch> batch;
                while ((batch = partition.nextBatch()).isPresent()) {
                    if (batch.get().deviceType() != 2 || batch.get().deviceId() != partition.device()) {
                        throw new IllegalStateException("batch handed over as " + batch.get().deviceTypeName() + " on device " + batch.get().deviceId()
                                + ": " + batch.get().reason());
                    }
                    rows += batch.get().rows();
                }
                return rows;
            });
            long rows = 0;
            for (PartitionResult<Long> result : results) {
                System.out.printf("device batches: partition %d on %s device %d: %d batches, %d rows, %d bytes decoded into device memory, %d on the host"
                        + " (fallbacks %s), file bytes by route %s, exported as %s%n", result.partition(), result.backend(), result.device(), result.batches(),
                        result.rows(), result.decodedDeviceBytes(), result.decodedHostBytes(), result.deviceFallbacks(), result.bytesByRoute(), result.exportedAs());
                assertEquals("cuda", result.backend());
                assertEquals("ARROW_DEVICE_CUDA", result.exportedAs(), result.exportReason());
                assertEquals(0, result.exportHostCopyBytes());
                assertEquals(0, result.fallbackChunks(), "flat PLAIN/dictionary columns all take the kernels: " + result.deviceFallbacks());
                assertEquals(0, result.decodedHostBytes());
                assertEquals(result.deviceBytes(), result.decodedDeviceBytes());
                assertEquals(result.rows(), (long) result.value());
                // Spark wrote the sample with snappy: its bodies cross compressed and nvCOMP decompresses them on the
                // device, or, without nvCOMP, the CPU decompresses them and they cross decompressed (counted by reason).
                DevicePageTraffic pages = result.devicePages();
                System.out.println("device batches: partition " + result.partition() + " kernels: " + pages);
                assertTrue(pages.uploadedBytes() > 0, pages.toString());
                if (pages.decompressedOnHost().isEmpty()) {
                    assertTrue(pages.chunksDecompressedOnDevice() > 0 && pages.uploadedBytes() < pages.decodedBytes(), pages.toString());
                }
                else {
                    assertEquals(pages.decodedBytes(), pages.uploadedBytes(), pages.toString());
                }
                rows += result.rows();
            }
            assertEquals(200_000, rows);
            System.out.println("device batches: PASS " + results.size() + " partitions, " + rows + " rows as ARROW_DEVICE_CUDA arrays");
        }
        finally {
            spark.stop();
        }
    }
}
