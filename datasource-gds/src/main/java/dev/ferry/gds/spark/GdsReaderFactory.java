package dev.ferry.gds.spark;

import dev.ferry.gds.GdsReadSettings;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.util.SerializableConfiguration;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Shipped to the tasks: everything they need to read their row groups, as Spark's columnar batches
 * ({@link #createColumnarReader}) or, for a GPU consumer, as device batches ({@link #createDeviceReader}).
 */
public final class GdsReaderFactory
        implements PartitionReaderFactory
{
    private static final long serialVersionUID = 1L;

    private final GdsReadSettings settings;
    private final Broadcast<SerializableConfiguration> hadoopConf;
    private final StructType readSchema;
    private final StructType dataReadSchema;
    private final StructType partitionSchema;
    private final HashMap<String, String> deviceConf;
    // The pushed filters on data columns, evaluated per batch by the readers (Spark's filters are serializable).
    private final ArrayList<Filter> dataFilters;
    // Those of dataFilters Spark does not evaluate again; their columns may follow readSchema's in dataReadSchema.
    private final ArrayList<Filter> exactFilters;

    /**
     * @param dataReadSchema the data columns of {@code readSchema}, in its order, then any columns only
     *         {@code exactFilters} read (the readers filter on them and drop them from the batches)
     */
    GdsReaderFactory(GdsReadSettings settings, Broadcast<SerializableConfiguration> hadoopConf, StructType readSchema, StructType dataReadSchema,
            StructType partitionSchema, Map<String, String> deviceConf, List<Filter> dataFilters, List<Filter> exactFilters)
    {
        this.exactFilters = new ArrayList<>(requireNonNull(exactFilters, "exactFilters is null"));
        this.settings = requireNonNull(settings, "settings is null");
        this.hadoopConf = requireNonNull(hadoopConf, "hadoopConf is null");
        this.readSchema = requireNonNull(readSchema, "readSchema is null");
        this.dataReadSchema = requireNonNull(dataReadSchema, "dataReadSchema is null");
        this.partitionSchema = requireNonNull(partitionSchema, "partitionSchema is null");
        this.deviceConf = new HashMap<>(requireNonNull(deviceConf, "deviceConf is null"));
        this.dataFilters = new ArrayList<>(requireNonNull(dataFilters, "dataFilters is null"));
    }

    @Override
    public boolean supportColumnarReads(InputPartition partition)
    {
        return true;
    }

    @Override
    public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition)
    {
        return new GdsPartitionReader(((GdsInputPartition) partition).slices(), settings, GdsTableState.readOptions(hadoopConf.value().value(), settings),
                readSchema, dataReadSchema, partitionSchema, deviceConf, dataFilters, exactFilters);
    }

    /**
     * A reader of {@code partition}'s batches into the task's device memory, decoded by the backend's
     * device decoder ({@link GdsDeviceBatchReader}); for a scan with no pushed filters (rows are not
     * filtered on device batches) and no partition columns.
     */
    public GdsDeviceBatchReader createDeviceReader(InputPartition partition)
    {
        if (!dataFilters.isEmpty()) {
            throw new IllegalArgumentException("Device batches are not filtered by row; this scan has pushed filters " + dataFilters);
        }
        return new GdsDeviceBatchReader(((GdsInputPartition) partition).slices(), settings, GdsTableState.readOptions(hadoopConf.value().value(), settings),
                readSchema, dataReadSchema, deviceConf);
    }

    /** The columns every batch holds, in order. */
    public StructType readSchema()
    {
        return readSchema;
    }

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition)
    {
        return new RowsOfBatches(createColumnarReader(partition));
    }
}
