package dev.ferry.gds.repartition;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.device.partition.DeviceHashPartitioning;
import dev.ferry.device.partition.DevicePartitioner;
import dev.ferry.device.partition.DevicePartitioners;
import dev.ferry.device.partition.PartitionColumn;
import dev.ferry.device.partition.PartitionKey;
import dev.ferry.device.partition.PartitionKeyKind;
import dev.ferry.device.partition.PartitionedColumn;
import dev.ferry.gds.device.DeviceBatch;
import dev.ferry.gds.device.DeviceColumn;
import dev.ferry.gds.device.DeviceTarget;
import org.apache.spark.sql.types.DataType;

import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Repartitions device-resident Arrow batches (as the gds reader's {@code nextOnDevice} produces
 * them) by key columns into {@code n} per-partition device batches on the same device, as Spark's
 * {@code df.repartition(n, keys)} would place the rows: Murmur3 (seed 42) over the keys, pmod n,
 * rows in input order within each partition. Every row byte stays in device memory; only a few
 * words of sizes per partition come back to the host. Key types: int, bigint, string, date,
 * timestamp, decimal, boolean, float, double; any other key is refused naming the column.
 */
public final class DeviceBatchRepartitioner
{
    private final DeviceTarget target;
    private final DevicePartitioner kernels;

    public DeviceBatchRepartitioner(DeviceTarget target, DevicePartitioner kernels)
    {
        this.target = requireNonNull(target, "target is null");
        this.kernels = requireNonNull(kernels, "kernels is null");
    }

    /** With the kernels {@link DevicePartitioners#choose} finds for the target; refused, with the reason, where none can run. */
    public static DeviceBatchRepartitioner forTarget(DeviceTarget target)
    {
        DevicePartitioners.Choice choice = DevicePartitioners.choose(target.runtime(), target.device());
        DevicePartitioner kernels = choice.partitioner().orElseThrow(() -> new FerryException(ErrorCategory.EXTERNAL,
                "device batches cannot be repartitioned on device " + target.device() + " of backend " + target.runtime().backendName() + ": " + choice.reason()));
        return new DeviceBatchRepartitioner(target, kernels);
    }

    public String kernels()
    {
        return kernels.describe();
    }

    /**
     * {@code batch} split into {@code partitions} device batches by the columns at {@code keyColumns}
     * (hashed in that order). The input stays the caller's; the caller owns the outputs.
     */
    public List<DeviceBatch> repartition(DeviceBatch batch, int[] keyColumns, int partitions)
    {
        requireNonNull(batch, "batch is null");
        if (batch.device() != target.device()) {
            throw new IllegalArgumentException("a batch on device " + batch.device() + " cannot be repartitioned by the kernels of device " + target.device());
        }
        List<DeviceColumn> inputs = batch.columns();
        List<PartitionKey> keys = new ArrayList<>();
        for (int index : keyColumns) {
            if (index < 0 || index >= inputs.size()) {
                throw new IllegalArgumentException("key column " + index + " is not one of the batch's " + inputs.size() + " columns");
            }
            DeviceColumn column = inputs.get(index);
            DataType type = column.type();
            PartitionKeyKind kind = RepartitionTypes.keyKind(type).orElseThrow(() -> new IllegalArgumentException("key column " + column.name() + " has type "
                    + type.simpleString() + "; device repartitioning hashes int, bigint, string (binary collation), date, timestamp, decimal, boolean, float and double keys"));
            keys.add(new PartitionKey(index, kind));
        }
        List<PartitionColumn> columns = inputs.stream().map(RepartitionTypes::partitionColumn).toList();
        DeviceHashPartitioning partitioning = new DeviceHashPartitioning(kernels, target.runtime().deviceAllocator(target.device()), target.stream());
        // The batch's producer synchronized its stream before handing it on (DeviceBatch's contract).
        List<DeviceHashPartitioning.Partition> parts = partitioning.partition(columns, keys, batch.rows(), partitions);
        List<DeviceBatch> out = new ArrayList<>();
        for (DeviceHashPartitioning.Partition part : parts) {
            List<DeviceColumn> partColumns = new ArrayList<>();
            for (int i = 0; i < inputs.size(); i++) {
                PartitionedColumn column = part.columns().get(i);
                partColumns.add(new DeviceColumn(inputs.get(i).name(), inputs.get(i).type(), column.nullCount(), column.buffers(), column.lengths()));
            }
            out.add(new DeviceBatch(target.device(), part.rows(), partColumns));
        }
        return out;
    }
}
