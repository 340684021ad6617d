package dev.ferry.gds.api;

import dev.ferry.gds.GdsConfigKeys;
import dev.ferry.gds.spark.GdsDeviceBatchReader;
import dev.ferry.gds.spark.GdsReaderFactory;
import dev.ferry.topology.route.FileConsumer;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.types.StructType;
import scala.jdk.javaapi.CollectionConverters;

import java.io.Serializable;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Device batches to GPU consumers: reads Parquet with {@code spark.read.format("gds")} as a device
 * consumer and runs a user function on each partition's batches while they are in the executor's
 * GPU memory, exported as Arrow C Device Data Interface arrays ({@link ExportedDeviceBatch}), and
 * returns each partition's result to the driver.
 * <pre>{@code
 * List<PartitionResult<Long>> results = DeviceBatches.forEachPartition(spark, "/data/events", List.of("user", "amount"), Map.of(),
 *         partition -> {
 *             long rows = 0;
 *             for (Optional<ExportedDeviceBatch> batch; (batch = partition.nextBatch()).isPresent(); ) {
 *                 rows += myCudaLibrary.consume(batch.get().address());   // a JNI call taking the ArrowDeviceArray*
 *             }
 *             return rows;
 *         });
 * }</pre>
 * Each task reads its row groups through the gds reader factory's device reader
 * ({@link GdsReaderFactory#createDeviceReader}): the I/O route a device consumer gets (GDS into device
 * memory, or BOUNCE), the backend's device decoder into device memory, no row repacked. Column chunks
 * the device decoder refuses (nested, DELTA_*, BYTE_STREAM_SPLIT, converted types) are decoded on the
 * CPU and uploaded, and counted by reason in the {@link PartitionResult}. Only flat columns and no
 * partition columns; tasks are placed by Spark without the scan's locality preferences.
 *
 * <p>To repartition the batches by key columns across the executors' GPUs first (as
 * {@code df.repartition(n, keys)} places rows), hand the {@link DeviceScan} to
 * {@code dev.ferry.repartition.DeviceRepartition.of(scan, keys, n)} in the plugin jar (it needs
 * Ferry's shuffle manager, which this module does not depend on); its {@code forEachPartition}
 * takes the same {@link DevicePartitionFunction}.
 */
public final class DeviceBatches
{
    private DeviceBatches() {}

    /**
     * Plans a gds read of {@code path} for a device consumer with {@code options} (any gds or
     * {@code spark.ferry.device.*} option), of {@code columns} (all when empty).
     */
    public static DeviceScan scan(SparkSession spark, String path, List<String> columns, Map<String, String> options)
    {
        requireNonNull(spark, "spark is null");
        requireNonNull(path, "path is null");
        Dataset<Row> table = spark.read().format("gds").options(requireNonNull(options, "options is null"))
                .option(GdsConfigKeys.CONSUMER.name(), FileConsumer.DEVICE.name().toLowerCase(Locale.ROOT))
                .load(path);
        if (!columns.isEmpty()) {
            table = table.select(columns.get(0), columns.subList(1, columns.size()).toArray(new String[0]));
        }
        BatchScanExec scan = findScan(table.queryExecution().executedPlan());
        return new DeviceScan(spark, scan.scan().description(), scan.batch());
    }

    /** {@link #scan} and {@link DeviceScan#forEachPartition} in one call. */
    public static <R extends Serializable> List<PartitionResult<R>> forEachPartition(SparkSession spark, String path, List<String> columns,
            Map<String, String> options, DevicePartitionFunction<R> function)
    {
        return scan(spark, path, columns, options).forEachPartition(function);
    }

    private static BatchScanExec findScan(SparkPlan plan)
    {
        return findGdsScan(plan).orElseThrow(() -> new IllegalStateException("No gds scan in the plan:\n" + plan));
    }

    private static Optional<BatchScanExec> findGdsScan(SparkPlan plan)
    {
        if (plan instanceof BatchScanExec scan && scan.scan().description().startsWith("GdsScan")) {
            return Optional.of(scan);
        }
        for (SparkPlan child : CollectionConverters.asJava(plan.children())) {
            Optional<BatchScanExec> found = findGdsScan(child);
            if (found.isPresent()) {
                return found;
            }
        }
        return Optional.empty();
    }

    /** A planned device read: its explain string and its partitions. */
    public static final class DeviceScan
    {
        private final SparkSession spark;
        private final String description;
        private final Batch batch;

        private DeviceScan(SparkSession spark, String description, Batch batch)
        {
            this.spark = spark;
            this.description = description;
            this.batch = batch;
        }

        /** The gds scan's explain string: route, consumer and the per-chunk device fallbacks it expects. */
        public String description()
        {
            return description;
        }

        public SparkSession spark()
        {
            return spark;
        }

        /** The gds scan's device reader factory; refused for a scan that answers with another (pushed aggregates). */
        public GdsReaderFactory readerFactory()
        {
            PartitionReaderFactory factory = batch.createReaderFactory();
            if (!(factory instanceof GdsReaderFactory gds)) {
                throw new IllegalStateException("The gds scan answers with " + factory.getClass().getSimpleName() + " (pushed aggregates?); device batches need its batch reader");
            }
            return gds;
        }

        /** The scan's partitions, one task each. */
        public List<InputPartition> partitions()
        {
            return List.of(batch.planInputPartitions());
        }

        /** Runs {@code function} on every partition's device batches, one task per partition; the results in partition order. */
        public <R extends Serializable> List<PartitionResult<R>> forEachPartition(DevicePartitionFunction<R> function)
        {
            requireNonNull(function, "function is null");
            GdsReaderFactory gds = readerFactory();
            InputPartition[] partitions = batch.planInputPartitions();
            if (partitions.length == 0) {
                return List.of();
            }
            JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
            return context.parallelize(Arrays.asList(partitions), partitions.length)
                    .mapPartitionsWithIndex(new PartitionTask<>(gds, function), false)
                    .collect();
        }
    }

    /** One task: a device reader over its partition, the user's function over the exported batches, the counters. */
    private static final class PartitionTask<R extends Serializable>
            implements Function2<Integer, Iterator<InputPartition>, Iterator<PartitionResult<R>>>
    {
        private static final long serialVersionUID = 1L;

        private final GdsReaderFactory factory;
        private final DevicePartitionFunction<R> function;

        PartitionTask(GdsReaderFactory factory, DevicePartitionFunction<R> function)
        {
            this.factory = factory;
            this.function = function;
        }

        @Override
        public Iterator<PartitionResult<R>> call(Integer index, Iterator<InputPartition> partitions)
                throws Exception
        {
            InputPartition partition = partitions.next();
            StructType schema = factory.readSchema();
            try (GdsDeviceBatchReader reader = factory.createDeviceReader(partition)) {
                R value;
                DevicePartition device = new DevicePartition(index, reader, schema);
                try {
                    value = function.call(device);
                }
                finally {
                    device.close();
                }
                GdsDeviceBatchReader.Counters counters = reader.counters();
                return List.of(new PartitionResult<>(index, value, device.backend(), device.device(), counters.batches(), counters.rows(),
                        device.deviceBytes(), counters.decodedHostBytes(), counters.decodedDeviceBytes(), counters.deviceFallbacks(), counters.bytesByRoute(),
                        device.exportedAs(), device.exportReason(), device.exportHostCopyBytes(), counters.devicePages())).iterator();
            }
        }
    }
}
