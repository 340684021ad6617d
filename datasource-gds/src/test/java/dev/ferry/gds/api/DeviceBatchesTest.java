package dev.ferry.gds.api;

import dev.ferry.gds.TestingSpark;
import dev.ferry.gds.device.ArrowDeviceArrayView;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Device batches to a consumer on the simulated backend, end to end: a GDS read into (simulated)
 * device memory, the simulated device decoder writing the Arrow buffers straight into device memory,
 * the batches exported as ArrowDeviceArrays and read by a consumer through the specification's
 * offsets only. The consumer's rows equal {@code spark.read.parquet}'s; the counters show no
 * decoded byte in host memory, and where the device decoder refuses chunks (DELTA encodings) they
 * are decoded on the CPU, uploaded and counted per chunk with the reason, and the scan's explain
 * string expects the same fallbacks.
 */
class DeviceBatchesTest
{
    private static final List<String> COLUMNS = List.of("id", "quantity", "price", "ship_date", "comment");
    private static final Map<String, String> SIMULATED = Map.of(
            "spark.ferry.device", "simulated",
            "spark.ferry.device.simulated.count", "1",
            "spark.ferry.gds.route", "gds",
            "spark.ferry.gds.batchRows", "1000");

    private static SparkSession spark;

    @BeforeAll
    static void start()
    {
        spark = TestingSpark.start();
    }

    @AfterAll
    static void stop()
    {
        spark.stop();
    }

    @Test
    void deviceDecodedBatchesReachTheConsumerWithNoDecodedBytesInHostMemory(@TempDir Path directory)
    {
        String path = write(directory.resolve("plain"), false);
        DeviceBatches.DeviceScan scan = DeviceBatches.scan(spark, path, COLUMNS, SIMULATED);
        assertTrue(scan.description().contains("consumer=device") && scan.description().contains("deviceFallbacks=0/"), scan.description());

        List<PartitionResult<ArrayList<String>>> results = scan.forEachPartition(new RenderRows());

        assertTrue(results.size() >= 2, "partitions: " + results.size());
        long rows = 0;
        for (PartitionResult<ArrayList<String>> result : results) {
            assertEquals("simulated", result.backend());
            assertEquals(0, result.decodedHostBytes(), "decoded bytes in host memory: " + counters(result));
            assertTrue(result.decodedDeviceBytes() > 0, counters(result));
            assertEquals(result.deviceBytes(), result.decodedDeviceBytes(), "every byte of the batches was decoded into device memory: " + counters(result));
            assertEquals(0, result.fallbackChunks(), counters(result));
            assertTrue(result.bytesByRoute().getOrDefault("GDS", 0L) > 0, "read on the GDS route: " + result.bytesByRoute());
            // The simulated backend lends no device address: the export copies back for the consumer, and says so.
            assertEquals("ARROW_DEVICE_CPU", result.exportedAs(), counters(result));
            assertEquals(result.deviceBytes(), result.exportHostCopyBytes(), counters(result));
            assertTrue(result.batches() >= 2, "several batches per partition: " + counters(result));
            rows += result.rows();
        }
        assertEquals(20_000, rows);
        assertEquals(expected(path), consumed(results));
    }

    @Test
    void chunksTheDeviceDecoderRefusesAreDecodedOnTheHostAndCountedPerChunk(@TempDir Path directory)
    {
        // Format v2 without dictionaries: DELTA_BINARY_PACKED integers and dates, DELTA_BYTE_ARRAY strings, PLAIN doubles.
        String path = write(directory.resolve("delta"), true);
        DeviceBatches.DeviceScan scan = DeviceBatches.scan(spark, path, COLUMNS, SIMULATED);

        List<PartitionResult<ArrayList<String>>> results = scan.forEachPartition(new RenderRows());

        long fallbackChunks = 0;
        for (PartitionResult<ArrayList<String>> result : results) {
            assertTrue(result.deviceFallbacks().keySet().stream().allMatch(reason -> reason.startsWith("encoding DELTA")), counters(result));
            assertTrue(result.decodedHostBytes() > 0, "refused chunks are decoded on the host: " + counters(result));
            assertTrue(result.decodedDeviceBytes() > 0, "PLAIN doubles still decode into device memory: " + counters(result));
            assertEquals(result.deviceBytes(), result.decodedHostBytes() + result.decodedDeviceBytes(), counters(result));
            fallbackChunks += result.fallbackChunks();
        }
        // One file per partition, one row group per file: four of the five columns of every row group fall back, counted once per chunk.
        assertEquals(4L * results.size(), fallbackChunks, results.stream().map(DeviceBatchesTest::counters).toList().toString());
        assertTrue(scan.description().contains("deviceFallbacks=" + fallbackChunks + "/" + 5 * results.size() + " chunks [encoding DELTA"), scan.description());
        assertEquals(expected(path), consumed(results));
    }

    /** 20,000 rows in two files (one row group each), every column but id with nulls. */
    private static String write(Path path, boolean deltaEncodings)
    {
        var writer = spark.range(0, 20_000, 1, 2)
                .selectExpr(
                        "id",
                        "CASE WHEN id % 17 = 0 THEN NULL ELSE CAST(id % 1000 AS INT) END AS quantity",
                        "CASE WHEN id % 13 = 0 THEN NULL ELSE CAST(id % 10007 AS DOUBLE) / 8 END AS price",
                        "CASE WHEN id % 11 = 0 THEN NULL ELSE date_add(DATE'2024-01-01', CAST(id % 400 AS INT)) END AS ship_date",
                        "CASE WHEN id % 7 = 0 THEN NULL ELSE concat('item-', CAST(id % 977 AS STRING), CASE WHEN id % 3 = 0 THEN '-é' ELSE '' END) END AS comment")
                .write().mode(SaveMode.Overwrite);
        if (deltaEncodings) {
            writer = writer.option("parquet.writer.version", "PARQUET_2_0").option("parquet.enable.dictionary", "false");
        }
        writer.parquet(path.toString());
        return path.toString();
    }

    /** Spark's own reader, rendered as the consumer renders (dates as days since the epoch). */
    private static List<String> expected(String path)
    {
        List<String> rows = new ArrayList<>();
        for (Row row : spark.read().parquet(path).selectExpr("id", "quantity", "price", "datediff(ship_date, DATE'1970-01-01')", "comment").collectAsList()) {
            List<String> values = new ArrayList<>();
            for (int column = 0; column < row.size(); column++) {
                values.add(row.isNullAt(column) ? "null" : String.valueOf(row.get(column)));
            }
            rows.add(String.join("|", values));
        }
        Collections.sort(rows);
        return rows;
    }

    /** A result's counters without its rows, for messages. */
    private static String counters(PartitionResult<?> result)
    {
        return "partition " + result.partition() + ": " + result.batches() + " batches, " + result.rows() + " rows, deviceBytes=" + result.deviceBytes()
                + " decodedHostBytes=" + result.decodedHostBytes() + " decodedDeviceBytes=" + result.decodedDeviceBytes() + " fallbacks=" + result.deviceFallbacks()
                + " routes=" + result.bytesByRoute() + " exported as " + result.exportedAs() + " (" + result.exportHostCopyBytes() + " bytes copied to host)";
    }

    private static List<String> consumed(List<PartitionResult<ArrayList<String>>> results)
    {
        List<String> rows = new ArrayList<>();
        results.forEach(result -> rows.addAll(result.value()));
        Collections.sort(rows);
        return rows;
    }

    /** The consumer: reads each exported struct only by the C Device Data Interface's offsets, releases it, and renders its rows. */
    private static final class RenderRows
            implements DevicePartitionFunction<ArrayList<String>>
    {
        private static final long serialVersionUID = 1L;

        @Override
        public ArrayList<String> call(DevicePartition partition)
                throws Exception
        {
            ArrayList<String> rows = new ArrayList<>();
            StructType schema = partition.schema();
            Optional<ExportedDeviceBatch> next;
            while ((next = partition.nextBatch()).isPresent()) {
                ExportedDeviceBatch batch = next.get();
                ArrowDeviceArrayView view = new ArrowDeviceArrayView(batch.address());
                ArrowDeviceArrayView.Array parent = view.array();
                for (int row = 0; row < batch.rows(); row++) {
                    List<String> values = new ArrayList<>();
                    for (int column = 0; column < schema.fields().length; column++) {
                        values.add(render(parent.child(column), schema.fields()[column].dataType(), row));
                    }
                    rows.add(String.join("|", values));
                }
                view.release();
                if (!batch.released()) {
                    throw new IllegalStateException("release callback did not mark the array released");
                }
            }
            return rows;
        }

        private static String render(ArrowDeviceArrayView.Array column, DataType type, int row)
        {
            if (!column.isValid(row)) {
                return "null";
            }
            if (type.equals(DataTypes.LongType)) {
                return String.valueOf(column.int64(1, row));
            }
            if (type.equals(DataTypes.IntegerType) || type.equals(DataTypes.DateType)) {
                return String.valueOf(column.int32(1, row));
            }
            if (type.equals(DataTypes.DoubleType)) {
                return String.valueOf(column.float64(1, row));
            }
            if (type.equals(DataTypes.StringType)) {
                return column.utf8(row);
            }
            throw new IllegalArgumentException("no rendering for " + type);
        }
    }
}
