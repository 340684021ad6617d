package dev.ferry.examples.dataload;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import dev.ferry.examples.launch.SparkJvm;
import dev.ferry.gds.api.DeviceBatches;
import dev.ferry.gds.api.DevicePageTraffic;
import dev.ferry.gds.api.DevicePartition;
import dev.ferry.gds.api.DevicePartitionFunction;
import dev.ferry.gds.api.ExportedDeviceBatch;
import dev.ferry.gds.api.PartitionResult;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;

/**
 * GPU data loading, the example of {@link DeviceBatches}: reads Parquet with the {@code gds} reader
 * as a device consumer, each task decoding its row groups into its GPU's memory (the executor's device
 * runtime: {@code cuda} on a GPU, {@code simulated} without one; no row is repacked), and hands every
 * batch to a consumer as an Arrow C Device Data Interface {@code ArrowDeviceArray}
 * ({@code ARROW_DEVICE_CUDA} with device pointers on cuda; on backends that lend no device address,
 * a host copy as {@code ARROW_DEVICE_CPU}, with the reason logged and counted). The consumer here
 * sums every column through that layout. The check against Spark's own reader covers every batch:
 * each is also copied back from device memory (D->H through the device runtime, on every backend; the
 * consumer's own path stays copy-free) and summed the same way, and those bytes are printed as
 * verification bytes, apart from the consumer's.
 * <pre>
 * java -cp examples/target/classes:$(cat target/ferry-classpath.txt) dev.ferry.examples.dataload.GpuDataLoad \
 *     [--device auto|simulated|cuda|host] [--master local[2]] [--rows N | --input PARQUET_DIR] [--dir DIR]
 * </pre>
 * ({@code bin/ferry build} writes target/ferry-classpath.txt.) Or with {@code spark-submit --jars
 * <plugin jar> --class dev.ferry.examples.dataload.GpuDataLoad <examples jar> --input ...}.
 * Exit codes: 0 the consumer saw Spark's values, 1 it did not or the run failed, 2 bad arguments.
 */
public final class GpuDataLoad
{
    private GpuDataLoad() {}

    /** What a run found: the scan's description (route and consumer), the merged task results and whether they match Spark's reader. */
    record Outcome(String scan, List<PartitionResult<ColumnChecksums>> tasks, ColumnChecksums checksums, List<String> mismatches)
    {
    }

    public static void main(String[] args)
            throws Exception
    {
        String master = "local[2]";
        String device = "auto";
        long rows = 200_000;
        Path input = null;
        Path directory = null;
        List<String> rest = new ArrayList<>(List.of(args));
        try {
            while (!rest.isEmpty()) {
                String flag = rest.remove(0);
                if (flag.equals("-h") || flag.equals("--help")) {
                    System.out.println("usage: GpuDataLoad [--device auto|simulated|cuda|host] [--master M] [--rows N | --input PARQUET_DIR] [--dir DIR]");
                    return;
                }
                if (rest.isEmpty()) {
                    throw new IllegalArgumentException(flag + " needs a value");
                }
                String value = rest.remove(0);
                switch (flag) {
                    case "--master" -> master = value;
                    case "--device" -> device = value;
                    case "--rows" -> rows = Long.parseLong(value);
                    case "--input" -> input = Path.of(value);
                    case "--dir" -> directory = Path.of(value);
                    default -> throw new IllegalArgumentException("Unknown argument '" + flag + "'");
                }
            }
        }
        catch (IllegalArgumentException e) {
            System.err.println("GpuDataLoad: " + e.getMessage());
            System.exit(2);
        }
        int childExit = SparkJvm.relaunchIfNeeded(GpuDataLoad.class, args);
        if (childExit >= 0) {
            System.exit(childExit);
        }
        SparkSession spark = SparkSession.builder().master(master).appName("ferry-gpu-data-load")
                .config("spark.ui.enabled", "false")
                .config("spark.log.level", "WARN")
                .config("spark.plugins", "dev.ferry.FerryPlugin")
                .config("spark.shuffle.manager", "dev.ferry.shuffle.FerryShuffleManager")
                .config("spark.ferry.device", device)
                .getOrCreate();
        int exit;
        try {
            if (input == null) {
                Path base = directory != null ? Files.createDirectories(directory) : Files.createTempDirectory("ferry-dataload");
                input = base.resolve("sample");
                writeSample(spark, input, rows);
            }
            Outcome outcome = run(spark, input);
            print(outcome);
            exit = outcome.mismatches().isEmpty() ? 0 : 1;
        }
        finally {
            spark.stop();
        }
        System.exit(exit);
    }

    /** A table of every type device batches hold, with nulls in each column. */
    static void writeSample(SparkSession spark, Path path, long rows)
    {
        spark.range(0, rows, 1, 4)
                .selectExpr(
                        "id",
                        "CASE WHEN id % 17 = 0 THEN NULL ELSE CAST(id % 1000 AS INT) END AS quantity",
                        "CASE WHEN id % 13 = 0 THEN NULL ELSE CAST(id % 10007 AS DOUBLE) / 8 END AS price",
                        "CASE WHEN id % 11 = 0 THEN NULL ELSE date_add(DATE'2024-01-01', CAST(id % 400 AS INT)) END AS ship_date",
                        "CASE WHEN id % 7 = 0 THEN NULL ELSE concat('item-', CAST(id % 977 AS STRING), CASE WHEN id % 3 = 0 THEN '-é' ELSE '' END) END AS comment")
                .write().mode(SaveMode.Overwrite).parquet(path.toString());
    }

    /**
     * Loads {@code input} onto the device through {@link DeviceBatches}: each task's batches are read
     * and decoded into its GPU's memory and handed to the consumer as ArrowDeviceArrays; what the
     * consumer saw is checked against Spark's own Parquet reader.
     */
    static Outcome run(SparkSession spark, Path input)
    {
        return run(spark, input, new SumColumns());
    }

    /** {@link #run(SparkSession, Path)} with another consumer function (each batch accepted, then verified, into its checksums). */
    static Outcome run(SparkSession spark, Path input, DevicePartitionFunction<ColumnChecksums> consumer)
    {
        DeviceBatches.DeviceScan scan = DeviceBatches.scan(spark, input.toString(), List.of(), Map.of());
        List<PartitionResult<ColumnChecksums>> tasks = scan.forEachPartition(consumer);
        StructType schema = spark.read().parquet(input.toString()).schema();
        ColumnChecksums total = new ColumnChecksums(schema);
        tasks.forEach(task -> total.merge(task.value()));
        return new Outcome(scan.description(), tasks, total, SparkReference.compare(spark, input, schema, total));
    }

    /**
     * The consumer of one partition: sums every batch through the ArrowDeviceArray layout, then releases it;
     * then, for the check only, sums the batch's verification copy. {@link #handedOver} is where a test
     * stands in for the cuda backend's hand-over.
     */
    static class SumColumns
            implements DevicePartitionFunction<ColumnChecksums>
    {
        private static final long serialVersionUID = 1L;

        /** Called with each batch as the consumer receives it, before it reads the batch. */
        void handedOver(ExportedDeviceBatch batch) {}

        @Override
        public final ColumnChecksums call(DevicePartition partition)
                throws Exception
        {
            ColumnChecksums checksums = new ColumnChecksums(partition.schema());
            Optional<ExportedDeviceBatch> batch;
            while ((batch = partition.nextBatch()).isPresent()) {
                handedOver(batch.get());
                checksums.accept(batch.get().address(), partition.schema());
                checksums.verify(batch.get(), partition.schema());
            }
            return checksums;
        }
    }

    private static void print(Outcome outcome)
    {
        ColumnChecksums sums = outcome.checksums();
        outcome.tasks().stream().map(task -> task.backend() + ": handed over as " + task.exportedAs() + (task.exportReason().isEmpty() ? "" : " (" + task.exportReason() + ")"))
                .distinct().forEach(line -> System.out.println("device batches: " + line));
        long deviceBytes = outcome.tasks().stream().mapToLong(PartitionResult::deviceBytes).sum();
        long decodedOnDevice = outcome.tasks().stream().mapToLong(PartitionResult::decodedDeviceBytes).sum();
        long decodedOnHost = outcome.tasks().stream().mapToLong(PartitionResult::decodedHostBytes).sum();
        Map<String, Long> fallbacks = new TreeMap<>();
        outcome.tasks().forEach(task -> task.deviceFallbacks().forEach((reason, chunks) -> fallbacks.merge(reason, chunks, Long::sum)));
        Map<String, Long> routes = new TreeMap<>();
        outcome.tasks().forEach(task -> task.bytesByRoute().forEach((route, bytes) -> routes.merge(route, bytes, Long::sum)));
        long consumerHostCopies = outcome.tasks().stream().mapToLong(PartitionResult::exportHostCopyBytes).sum();
        DevicePageTraffic pages = outcome.tasks().stream().map(PartitionResult::devicePages).reduce(DevicePageTraffic.NONE, DevicePageTraffic::plus);
        System.out.println("scan: " + outcome.scan());
        System.out.println("device decoder kernels: " + pages);
        System.out.printf(Locale.ROOT, "%d rows in %d batches, %,d bytes kept in device memory (%,d decoded into device memory, %,d decoded on the host and uploaded);"
                + " file bytes by route %s; device fallbacks %s; %d batches readable by the host consumer, %d device-resident%n",
                sums.rows(), sums.batches(), deviceBytes, decodedOnDevice, decodedOnHost, routes, fallbacks, sums.hostBatches(), sums.deviceResidentBatches());
        System.out.printf(Locale.ROOT, "consumer: %,d bytes of row data in host memory (the export's host copies; 0 where the batches were handed over as device pointers)%n",
                consumerHostCopies);
        System.out.printf(Locale.ROOT, "check: %,d verification bytes copied back from device memory (D->H through the device runtime, for the check only) in %d of %d"
                + " batches, %d rows%n", sums.verificationBytes(), sums.verifiedBatches(), sums.batches(), sums.verifiedRows());
        System.out.println("sums of the verification copies (every batch):");
        printColumns(sums.verifiedColumns());
        if (sums.hostBatches() > 0) {
            System.out.println("sums the consumer read itself (" + sums.hostBatches() + " batches in host memory):");
            printColumns(sums.columns());
        }
        System.out.println(outcome.mismatches().isEmpty() ? "The check saw the same values as Spark's Parquet reader in every batch."
                : "MISMATCH with Spark's Parquet reader: " + String.join("; ", outcome.mismatches()));
    }

    private static void printColumns(List<ColumnChecksums.Column> columns)
    {
        for (ColumnChecksums.Column column : columns) {
            System.out.printf(Locale.ROOT, "  %-10s valid=%d intSum=%d doubleSum=%.3f utf8Bytes=%d%n", column.name(), column.valid(), column.integerSum(),
                    column.doubleSum(), column.utf8Bytes());
        }
    }
}
