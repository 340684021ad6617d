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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.spark_partition_id;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Device batches repartitioned across four executor JVMs on the simulated two-node DGX H100
 * cluster ({@code dgx-h100-ib-2node}: executors 0 and 2 on dgx-a GPU0/GPU1, 1 and 3 on dgx-b),
 * device store on the simulated backend: every output partition holds exactly the rows Spark's
 * {@code df.repartition(n, k, s)} puts in the partition with that {@code spark_partition_id()},
 * and the blocks moved LOCAL (the reader's own store), NVLINK (peer copies into the reader's GPU,
 * same node) and GPUDIRECT_RDMA (READs into the reader's registered GPU memory, other node), with
 * no byte of those two routes staged through host memory.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestDeviceRepartitionLocalCluster
{
    private static final int PARTITIONS = 6;
    private static final List<String> COLUMNS = List.of("id", "k", "s", "d");

    private SparkSession spark;

    @BeforeAll
    void start()
            throws InterruptedException
    {
        spark = TopologyClusters.start(TopologyClusters.exampleTopology("dgx-h100-ib-2node"), "device", Map.of("spark.ferry.device", "simulated"));
    }

    @AfterAll
    void stop()
    {
        if (spark != null) {
            spark.stop();
        }
    }

    @Test
    void rowsLandInSparksPartitionsOverTheTopologysDeviceRoutes(@TempDir Path directory)
    {
        String path = directory.resolve("events").toString();
        // 8 files, one per map task, so every executor holds map outputs and every reader fetches from every kind of peer.
        spark.range(0, 24_000, 1, 8)
                .selectExpr("id",
                        "CASE WHEN id % 19 = 0 THEN NULL ELSE CAST(id % 1013 AS INT) END AS k",
                        "CASE WHEN id % 23 = 0 THEN NULL ELSE concat('key-', CAST(id % 37 AS STRING)) END AS s",
                        "date_add(DATE'2025-01-01', CAST(id % 500 AS INT)) AS d")
                .write().mode(SaveMode.Overwrite).parquet(path);

        DeviceBatches.DeviceScan scan = DeviceBatches.scan(spark, path, COLUMNS, Map.of("spark.ferry.gds.batchRows", "1000"));
        List<RepartitionedResult<ArrayList<String>>> results = DeviceRepartition.of(scan, List.of("k", "s"), PARTITIONS).forEachPartition(new RenderRows());

        assertEquals(PARTITIONS, results.size());
        // Before Spark's own repartition below leaves map outputs of its own in the stores.
        assertStoresEmpty();
        Map<Integer, List<String>> expected = sparkPartitions(path);
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
        assertEquals(24_000, rows);
        String routes = "bytes by route " + bytes + ", host-staged by decided route " + staged + "; " + results.stream().map(TestDeviceRepartitionLocalCluster::describe).toList();
        System.out.println("Device repartition of " + rows + " rows into " + PARTITIONS + " partitions: " + routes);
        assertTrue(bytes.getOrDefault("LOCAL", 0L) > 0, routes);
        assertTrue(bytes.getOrDefault("NVLINK", 0L) > 0, routes);
        assertTrue(bytes.getOrDefault("GPUDIRECT_RDMA", 0L) > 0, routes);
        assertEquals(0L, staged.getOrDefault("NVLINK", 0L), routes);
        assertEquals(0L, staged.getOrDefault("GPUDIRECT_RDMA", 0L), routes);
        assertEquals(0L, bytes.getOrDefault("HOST_STAGED", 0L) + bytes.getOrDefault("RDMA_HOST_STAGED", 0L), "nothing spilled or refused here: " + routes);
    }

    /** The repartition removed its blocks from every executor's device store when it ended (the executors that answer a small probe job). */
    private void assertStoresEmpty()
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
    private Map<Integer, List<String>> sparkPartitions(String path)
    {
        String adaptive = spark.conf().get("spark.sql.adaptive.enabled");
        // AQE leaves a repartition to an explicit number alone, but off is off: the ids are the hash's.
        spark.conf().set("spark.sql.adaptive.enabled", "false");
        try {
            Map<Integer, List<String>> partitions = new TreeMap<>();
            for (Row row : spark.read().parquet(path).repartition(PARTITIONS, col("k"), col("s"))
                    .select(col("id"), col("k"), col("s"), org.apache.spark.sql.functions.datediff(col("d"), org.apache.spark.sql.functions.lit("1970-01-01")), spark_partition_id())
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

    private static String describe(RepartitionedResult<?> result)
    {
        return "partition " + result.partition() + " on executor " + result.executorId() + " GPU " + result.device() + ": " + result.batches() + " batches, "
                + result.rows() + " rows, " + result.bytesByRoute() + ", staged " + result.hostStagedByDecidedRoute() + ", peers " + result.peerRoutes();
    }

    /** Renders every row of the partition's device batches through the exported Arrow C Device arrays. */
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
