package dev.ferry.gds.spark;

import com.sun.nio.file.ExtendedOpenOption;
import dev.ferry.gds.RowRendering;
import dev.ferry.gds.TestingSpark;
import dev.ferry.gds.route.ExecutorDevices;
import dev.ferry.gds.route.RouteRefusedException;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The GDS and BOUNCE routes end to end on the simulated device backend (O_DIRECT into simulated
 * device memory), which makes this a GPU node to the reader: results equal spark.read.parquet, and
 * the metrics show which route, which real read path and how many PCIe crossings the bytes took.
 */
class DeviceRoutesTest
{
    private static final String[] COLUMNS = {
            "id",
            "CASE WHEN id % 7 = 0 THEN NULL ELSE id % 3 = 0 END AS flag",
            "CASE WHEN id % 5 = 0 THEN NULL ELSE CAST(id * 2654435761 % 2147483647 AS INT) END AS i",
            "CASE WHEN id % 23 = 0 THEN NULL ELSE id / 7.0 END AS d",
            "CASE WHEN id % 8 = 0 THEN NULL ELSE CAST(id * 123456.789 - 5e8 AS DECIMAL(18, 3)) END AS dec18",
            "CASE WHEN id % 4 = 0 THEN NULL ELSE concat('s', CAST(id % 50 AS STRING), repeat('x', CAST(id % 5 AS INT))) END AS s",
            "CASE WHEN id % 18 = 0 THEN NULL ELSE array(CAST(id AS INT), NULL) END AS arr",
    };

    private static SparkSession spark;
    @TempDir
    static Path directory;
    private static String path;

    @BeforeAll
    static void start()
    {
        spark = TestingSpark.start();
        path = directory.resolve("table").toString();
        // Small row groups and pages: many column chunks at unaligned offsets.
        spark.range(0, 20_000, 1, 2).selectExpr(COLUMNS).write()
                .option("compression", "snappy")
                .option("parquet.block.size", "65536")
                .option("parquet.page.size", "8192")
                .parquet(path);
    }

    @AfterAll
    static void stop()
    {
        spark.stop();
    }

    @Test
    void forcedGdsReadsThroughTheSimulatedDevicePath()
            throws IOException
    {
        ScanMetrics.Result result = ScanMetrics.collect(gds("gds").load(path));
        assertSameRows(result);
        long gdsBytes = result.metric("gdsBytes");
        assertTrue(gdsBytes > 0, "no bytes on the GDS route: " + result.metrics());
        assertEquals(0, result.metric("hostBytes"));
        assertEquals(0, result.metric("bounceBytes"));
        assertEquals(0, result.metric("compatModeBytes"));
        // O_DIRECT into the simulated arena where the filesystem allows it, else the page cache: the verdict follows the filesystem.
        String direct = directIoWorks() ? "trueDirectBytes" : "posixBytes";
        String other = directIoWorks() ? "posixBytes" : "trueDirectBytes";
        assertTrue(result.metric(direct) >= gdsBytes, direct + " below gdsBytes: " + result.metrics());
        assertEquals(0, result.metric(other), result.metrics().toString());
        // A CPU consumer: each byte goes into the device (storage DMA, aligned supersets included) and comes back down once
        String into = directIoWorks() ? "pcieGdsStorageToDeviceBytes" : "pcieGdsHostToDeviceBytes";
        assertEquals(result.metric(direct), result.metric(into), result.metrics().toString());
        assertEquals(gdsBytes, result.metric("pcieGdsDeviceToHostBytes"), result.metrics().toString());
        assertEquals(0, result.metric("pcieBounceHostToDeviceBytes") + result.metric("pcieBounceDeviceToHostBytes"), result.metrics().toString());
    }

    @Test
    void forcedBounceStagesThroughHostBuffers()
    {
        ScanMetrics.Result result = ScanMetrics.collect(gds("bounce").load(path));
        assertSameRows(result);
        long bounceBytes = result.metric("bounceBytes");
        assertTrue(bounceBytes > 0, result.metrics().toString());
        assertEquals(bounceBytes, result.metric("posixBytes"));
        assertEquals(0, result.metric("gdsBytes") + result.metric("hostBytes") + result.metric("trueDirectBytes"));
        // Forced for a CPU consumer: honoured, and each byte crossed PCIe twice, up and back down
        assertEquals(bounceBytes, result.metric("pcieBounceHostToDeviceBytes"), result.metrics().toString());
        assertEquals(bounceBytes, result.metric("pcieBounceDeviceToHostBytes"), result.metrics().toString());
        assertEquals(0, gdsCrossings(result), result.metrics().toString());
    }

    @Test
    void autoReadsACpuConsumersFilesOnHostWithNoByteAcrossPcie()
    {
        long runtimes = ExecutorDevices.created();
        // A device configuration no other test uses: a runtime for it could only come from this read.
        Dataset<Row> frame = gds("auto").option("spark.ferry.device.simulated.count", "3").load(path);
        ScanMetrics.Result result = ScanMetrics.collect(frame);
        assertSameRows(result);
        assertTrue(result.metric("hostBytes") > 0, result.metrics().toString());
        assertEquals(0, result.metric("gdsBytes") + result.metric("bounceBytes"), "a CPU consumer must not read through the GPU: " + result.metrics());
        assertEquals(0, gdsCrossings(result) + result.metric("pcieBounceHostToDeviceBytes") + result.metric("pcieBounceDeviceToHostBytes"),
                "0 bytes may cross PCIe for a CPU query: " + result.metrics());
        String explain = frame.queryExecution().executedPlan().toString();
        assertTrue(explain.contains("consumer=cpu (HOST: CPU consumer, no PCIe crossing)"), explain);
        assertEquals(runtimes, ExecutorDevices.created(), "a CPU consumer's auto read (plan, explain and tasks) must create no device runtime");
    }

    @Test
    void autoGivesADeviceConsumerADeviceRoute()
    {
        Dataset<Row> frame = gds("auto").option("spark.ferry.gds.consumer", "device").load(path);
        ScanMetrics.Result result = ScanMetrics.collect(frame);
        assertSameRows(result);
        assertEquals(0, result.metric("hostBytes"), "a GPU backend and a device consumer, so auto must not read on the host: " + result.metrics());
        long deviceBytes = result.metric("gdsBytes") + result.metric("bounceBytes");
        assertTrue(deviceBytes > 0, result.metrics().toString());
        assertEquals(deviceBytes, result.metric("pcieGdsDeviceToHostBytes") + result.metric("pcieBounceDeviceToHostBytes"), result.metrics().toString());
        String explain = frame.queryExecution().executedPlan().toString();
        assertTrue(explain.contains("consumer=device") && explain.contains("topology policy") && explain.contains("device consumer"), explain);
    }

    @Test
    void aForcedRouteSaysWhatItCostsACpuConsumer()
    {
        String explain = gds("bounce").load(path).queryExecution().executedPlan().toString();
        assertTrue(explain.contains("two PCIe crossings"), explain);
    }

    @Test
    void forcedDeviceRoutesWithoutAGpuBackendAreRefused()
    {
        for (String route : new String[] {"gds", "bounce"}) {
            Dataset<Row> frame = spark.read().format("gds").option("spark.ferry.device", "host").option("spark.ferry.gds.route", route).load(path);
            Throwable error = assertThrows(Throwable.class, frame::collectAsList);
            Throwable cause = Stream.iterate(error, throwable -> throwable.getCause() != null && throwable.getCause() != throwable, Throwable::getCause)
                    .reduce((first, second) -> second).orElse(error);
            String message = error.toString() + " / " + cause;
            assertTrue(message.contains("no GPU-capable backend") && message.contains("route=" + route), message);
            assertTrue(cause instanceof RouteRefusedException || message.contains(RouteRefusedException.class.getSimpleName()), message);
        }
    }

    private static DataFrameReader gds(String route)
    {
        return spark.read().format("gds")
                .option("spark.ferry.device", "simulated")
                .option("spark.ferry.device.simulated.count", "1")
                .option("spark.ferry.gds.route", route);
    }

    private static long gdsCrossings(ScanMetrics.Result result)
    {
        return result.metric("pcieGdsStorageToDeviceBytes") + result.metric("pcieGdsHostToDeviceBytes") + result.metric("pcieGdsDeviceToHostBytes");
    }

    private static void assertSameRows(ScanMetrics.Result result)
    {
        assertEquals(RowRendering.sorted(spark.read().parquet(path).collectAsList()), RowRendering.sorted(result.rows()));
    }

    private static boolean directIoWorks()
            throws IOException
    {
        Path file;
        try (Stream<Path> files = Files.list(Path.of(path))) {
            file = files.filter(candidate -> candidate.toString().endsWith(".parquet")).findFirst().orElseThrow();
        }
        try (FileChannel ignored = FileChannel.open(file, StandardOpenOption.READ, ExtendedOpenOption.DIRECT)) {
            return true;
        }
        catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }
}
