package dev.ferry.it;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.IntStream;

import dev.ferry.gds.api.DeviceBatches;
import dev.ferry.gds.api.DevicePartition;
import dev.ferry.gds.api.DevicePartitionFunction;
import dev.ferry.gds.api.ExportedDeviceBatch;
import dev.ferry.gds.device.ArrowDeviceArrayView;
import dev.ferry.repartition.DeviceRepartition;
import dev.ferry.repartition.RepartitionObserver;
import dev.ferry.repartition.RepartitionedResult;
import dev.ferry.shuffle.FerryShuffleManager;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.datediff;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.spark_partition_id;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One device repartition of a Parquet table on a local cluster, checked against Spark: 24,000 rows
 * in 8 files (one per map task, so every executor holds map outputs and every reader fetches from
 * every kind of peer), repartitioned by {@code (k, s)} into 6 partitions with nulls in both keys;
 * every output partition must hold exactly the rows Spark's {@code df.repartition(6, k, s)} puts in
 * the partition with that {@code spark_partition_id()}, and the device stores must be empty after.
 * Returns the bytes per route summed over the partitions.
 */
final class DeviceRepartitionRun
{
    static final int PARTITIONS = 6;
    static final long ROWS = 24_000;
    private static final List<String> COLUMNS = List.of("id", "k", "s", "d");

    /** Bytes per carrying route and, per decided route, the bytes that passed through host memory; the results, in partition order. */
    record Routes(Map<String, Long> bytes, Map<String, Long> staged, String detail, List<RepartitionedResult<ArrayList<String>>> results) {}

    private DeviceRepartitionRun() {}

    static Routes runAndCompare(SparkSession spark, Path directory)
    {
        return runAndCompare(spark, directory, new RepartitionObserver() {}, new RenderRows());
    }

    /** As {@link #runAndCompare(SparkSession, Path)}, telling {@code observer} the rounds, with {@code function} (rendering the rows as {@link RenderRows} does). */
    static Routes runAndCompare(SparkSession spark, Path directory, RepartitionObserver observer, DevicePartitionFunction<ArrayList<String>> function)
    {
        String path = directory.resolve("events").toString();
        spark.range(0, ROWS, 1, 8)
                .selectExpr("id",
                        "CASE WHEN id % 19 = 0 THEN NULL ELSE CAST(id % 1013 AS INT) END AS k",
                        "CASE WHEN id % 23 = 0 THEN NULL ELSE concat('key-', CAST(id % 37 AS STRING)) END AS s",
                        "date_add(DATE'2025-01-01', CAST(id % 500 AS INT)) AS d")
                .write().mode(SaveMode.Overwrite).parquet(path);

        DeviceBatches.DeviceScan scan = DeviceBatches.scan(spark, path, COLUMNS, Map.of("spark.ferry.gds.batchRows", "1000"));
        List<RepartitionedResult<ArrayList<String>>> results = DeviceRepartition.of(scan, List.of("k", "s"), PARTITIONS).observedBy(observer)
                .forEachPartition(function);

        assertEquals(PARTITIONS, results.size());
        for (int partition = 0; partition < PARTITIONS; partition++) {
            assertEquals(partition, results.get(partition).partition(), "results in partition order");
        }
        // Before Spark's own repartition below leaves map outputs of its own in the stores.
        assertStoresEmpty(spark);
        Map<Integer, List<String>> expected = sparkPartitions(spark, path);
        Map<String, Long> bytes = new TreeMap<>();
        Map<String, Long> staged = new TreeMap<>();
        long rows = 0;
        for (RepartitionedResult<ArrayList<String>> result : results) {
            List<String> got = new ArrayList<>(result.value());
            Collections.sort(got);
            assertEquals(expected.getOrDefault(result.partition(), List.of()), got, "rows of partition " + result.partition() + " (" + describe(result) + ")");
            assertEquals(result.rows(), got.size(), describe(result));
            rows += result.rows();
            result.bytesByRoute().forEach((route, count) -> bytes.merge(route, count, Long::sum));
            result.hostStagedByDecidedRoute().forEach((route, count) -> staged.merge(route, count, Long::sum));
        }
        assertEquals(ROWS, rows);
        String detail = "bytes by route " + bytes + ", host-staged by decided route " + staged + "; " + results.stream().map(DeviceRepartitionRun::describe).toList();
        System.out.println("Device repartition of " + rows + " rows into " + PARTITIONS + " partitions: " + detail);
        return new Routes(bytes, staged, detail, results);
    }

    /** The repartition removed its blocks from every executor's device store when it ended (the executors that answer a small probe job). */
    static void assertStoresEmpty(SparkSession spark)
    {
        List<String> stores = JavaSparkContext.fromSparkContext(spark.sparkContext()).parallelize(IntStream.range(0, 32).boxed().toList(), 32)
                .map(ignored -> {
                    FerryShuffleManager manager = (FerryShuffleManager) SparkEnv.get().shuffleManager();
                    return SparkEnv.get().executorId() + "=" + manager.runtimeIfStarted().map(runtime -> runtime.store().memoryBytes()).orElse(0L);
                })
                .collect().stream().distinct().sorted().toList();
        assertTrue(stores.size() >= 2, "probed executors: " + stores);
        for (String store : stores) {
            assertTrue(store.endsWith("=0"), "device store bytes left after the repartition: " + stores);
        }
    }

    /** Spark's own repartition of the same rows, rendered as the consumer renders them (dates as days since the epoch), sorted per partition id. */
    private static Map<Integer, List<String>> sparkPartitions(SparkSession spark, String path)
    {
        String adaptive = spark.conf().get("spark.sql.adaptive.enabled");
        // AQE leaves a repartition to an explicit number alone, but off is off: the ids are the hash's.
        spark.conf().set("spark.sql.adaptive.enabled", "false");
        try {
            Map<Integer, List<String>> partitions = new TreeMap<>();
            for (Row row : spark.read().parquet(path).repartition(PARTITIONS, col("k"), col("s"))
                    .select(col("id"), col("k"), col("s"), datediff(col("d"), lit("1970-01-01")), spark_partition_id())
                    .collectAsList()) {
                List<String> values = new ArrayList<>();
                for (int column = 0; column < 4; column++) {
                    values.add(row.isNullAt(column) ? "null" : String.valueOf(row.get(column)));
                }
                partitions.computeIfAbsent(row.getInt(4), id -> new ArrayList<>()).add(String.join("|", values));
            }
            partitions.values().forEach(Collections::sort);
            return partitions;
        }
        finally {
            spark.conf().set("spark.sql.adaptive.enabled", adaptive);
        }
    }

    static String describe(RepartitionedResult<?> result)
    {
        return "partition " + result.partition() + " (round " + result.round() + ") on executor " + result.executorId() + " GPU " + result.device() + ": " + result.batches() + " batches, "
                + result.rows() + " rows, " + result.bytesByRoute() + ", staged " + result.hostStagedByDecidedRoute() + ", peers " + result.peerRoutes();
    }

    /** Renders every row of the partition's device batches through the exported Arrow C Device arrays. */
    static final class RenderRows
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
            if (type.equals(DataTypes.StringType)) {
                return column.utf8(row);
            }
            throw new IllegalArgumentException("no rendering for " + type);
        }
    }
}
