package dev.ferry.examples.dataload;

import java.nio.file.Path;

import dev.ferry.gds.api.ExportedDeviceBatch;
import dev.ferry.gds.api.PartitionResult;
import dev.ferry.gds.device.ArrowDeviceArrayLayout;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The data-loading example on the simulated backend: DeviceBatches over the gds reader, every batch
 * decoded straight into (simulated) device memory, a consumer that checks every column against Spark.
 */
class TestGpuDataLoad
{
    @Test
    void consumerSeesSparksValuesThroughDeviceBatches(@TempDir Path directory)
    {
        SparkSession spark = simulatedSession(directory, "test-gpu-data-load");
        try {
            Path input = directory.resolve("sample");
            GpuDataLoad.writeSample(spark, input, 20_000);
            GpuDataLoad.Outcome outcome = GpuDataLoad.run(spark, input);
            assertTrue(outcome.mismatches().isEmpty(), String.join("\n", outcome.mismatches()));
            assertEquals(20_000, outcome.checksums().rows());
            // A device consumer: the reader's auto route is chosen for it, and says so
            assertTrue(outcome.scan().contains("consumer=device") && outcome.scan().contains("for a device consumer, DeviceBatches decode on the device"),
                    outcome.scan());
            // The sample's chunks are all PLAIN or dictionary-encoded flat columns: the explain string expects no fallback.
            assertTrue(outcome.scan().contains("deviceFallbacks=0/"), outcome.scan());
            assertTrue(outcome.checksums().batches() >= 20, "batches: " + outcome.checksums().batches());
            assertEquals(outcome.checksums().batches(), outcome.checksums().hostBatches());
            // The check read every batch's verification copy too, and counted those bytes apart from the consumer's.
            assertEquals(outcome.checksums().batches(), outcome.checksums().verifiedBatches());
            assertEquals(outcome.tasks().stream().mapToLong(PartitionResult::deviceBytes).sum(), outcome.checksums().verificationBytes());
            for (PartitionResult<ColumnChecksums> task : outcome.tasks()) {
                assertEquals("simulated", task.backend());
                assertEquals("ARROW_DEVICE_CPU", task.exportedAs());
                assertTrue(task.exportReason().contains("lends no device address"), task.exportReason());
                assertTrue(task.deviceBytes() > 0, "nothing was kept in device memory");
                // No row repacked, nothing decoded on the host: every byte of the batches was decoded into device memory.
                assertEquals(0, task.decodedHostBytes(), task.toString());
                assertEquals(task.deviceBytes(), task.decodedDeviceBytes(), task.toString());
                assertEquals(0, task.fallbackChunks(), task.toString());
            }
            // Every column has nulls in the sample: the validity bitmaps were read, not skipped.
            outcome.checksums().columns().stream().skip(1).forEach(column -> assertTrue(column.valid() < 20_000, column.toString()));
        }
        finally {
            spark.stop();
        }
    }

    /**
     * As on cuda: every batch reaches the consumer as an ARROW_DEVICE_CUDA array, which it cannot read, so the
     * comparison with Spark rests on the verification copies alone. Fails if the check skips device-resident batches.
     */
    @Test
    void deviceResidentBatchesAreCheckedThroughTheirVerificationCopies(@TempDir Path directory)
    {
        SparkSession spark = simulatedSession(directory, "test-gpu-data-load-device-resident");
        try {
            Path input = directory.resolve("sample");
            GpuDataLoad.writeSample(spark, input, 20_000);
            GpuDataLoad.Outcome outcome = GpuDataLoad.run(spark, input, new ConsumerHandedDevicePointers());
            ColumnChecksums sums = outcome.checksums();
            assertTrue(sums.batches() >= 20, "batches: " + sums.batches());
            assertEquals(sums.batches(), sums.deviceResidentBatches());
            assertEquals(0, sums.hostBatches());
            assertEquals(sums.batches(), sums.verifiedBatches());
            assertEquals(20_000, sums.verifiedRows());
            assertEquals(outcome.tasks().stream().mapToLong(PartitionResult::deviceBytes).sum(), sums.verificationBytes());
            assertTrue(outcome.mismatches().isEmpty(), String.join("\n", outcome.mismatches()));
            // The consumer read nothing itself; the sums that matched Spark's are the verification copies'.
            sums.columns().forEach(column -> assertEquals(0, column.valid(), column.toString()));
            sums.verifiedColumns().stream().skip(1).forEach(column -> assertTrue(column.valid() > 0 && column.valid() < 20_000, column.toString()));
        }
        finally {
            spark.stop();
        }
    }

    private static SparkSession simulatedSession(Path directory, String name)
    {
        return SparkSession.builder().master("local[2]").appName(name)
                .config("spark.ui.enabled", "false")
                .config("spark.sql.warehouse.dir", directory.resolve("warehouse").toString())
                .config("spark.ferry.device", "simulated")
                // Small batches: many per task, so buffers are freed and reused across batches.
                .config("spark.ferry.gds.batchRows", "1000")
                .getOrCreate();
    }

    /** Marks each exported array as CUDA memory before the consumer sees it, as the cuda backend hands it over. */
    private static final class ConsumerHandedDevicePointers
            extends GpuDataLoad.SumColumns
    {
        private static final long serialVersionUID = 1L;

        @Override
        void handedOver(ExportedDeviceBatch batch)
        {
            MemoryUtil.putInt(batch.address() + ArrowDeviceArrayLayout.DEVICE_TYPE, ArrowDeviceArrayLayout.ARROW_DEVICE_CUDA);
        }
    }
}
