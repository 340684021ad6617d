package dev.ferry.repartition;

import dev.ferry.gds.api.DeviceBatches;
import org.apache.spark.sql.types.StructType;

import java.util.Arrays;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Repartitions a gds device read by key columns into {@code n} partitions across the executors'
 * GPUs, placing every row where Spark's {@code df.repartition(n, keys)} would (Murmur3 seed 42
 * over the keys in order, pmod n; rows of each map in input order):
 * <pre>{@code
 * DeviceBatches.DeviceScan scan = DeviceBatches.scan(spark, "/data/events", List.of("user", "amount"), Map.of());
 * List<RepartitionedResult<Long>> results = DeviceRepartition.of(scan, List.of("user"), 8).forEachPartition(partition -> {
 *     long rows = 0;
 *     for (Optional<ExportedDeviceBatch> batch; (batch = partition.nextBatch()).isPresent(); ) {
 *         rows += myCudaLibrary.consume(batch.get().address());
 *     }
 *     return rows;
 * });
 * }</pre>
 * Needs Ferry's shuffle manager with {@code spark.ferry.shuffle.stage=device} and a topology
 * ({@code spark.ferry.topology.file} or probed routes): the map outputs stay in each executor's
 * device store, and each reduce task fetches its blocks over the route the topology decides for a
 * device consumer ({@link RepartitionedResult#bytesByRoute()} says which carried what).
 */
public final class DeviceRepartition
{
    private DeviceRepartition() {}

    /** {@code scan}'s batches repartitioned by {@code keys} (columns of the scan, hashed in this order) into {@code partitions}; runs when its function is given. */
    public static DeviceRepartitioned of(DeviceBatches.DeviceScan scan, List<String> keys, int partitions)
    {
        requireNonNull(scan, "scan is null");
        requireNonNull(keys, "keys is null");
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("Repartitioning by keys needs at least one key column");
        }
        if (partitions <= 0) {
            throw new IllegalArgumentException("Number of partitions must be positive: " + partitions);
        }
        StructType schema = scan.readerFactory().readSchema();
        int[] keyColumns = new int[keys.size()];
        List<String> names = Arrays.asList(schema.fieldNames());
        for (int i = 0; i < keys.size(); i++) {
            keyColumns[i] = names.indexOf(keys.get(i));
            if (keyColumns[i] < 0) {
                throw new IllegalArgumentException("Key column " + keys.get(i) + " is not one of the scan's columns " + names);
            }
        }
        return new DeviceRepartitioned(scan, keyColumns, partitions);
    }
}
