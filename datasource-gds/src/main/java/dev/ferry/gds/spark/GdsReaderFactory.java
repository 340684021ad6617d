package dev.ferry.gds.spark;

import dev.ferry.gds.plan.GdsReadSettings;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.util.SerializableConfiguration;

import java.util.HashMap;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/** Shipped to the tasks: everything they need to read their row groups. */
final class GdsReaderFactory
        implements PartitionReaderFactory
{
    private static final long serialVersionUID = 1L;

    private final GdsReadSettings settings;
    private final SerializableConfiguration hadoopConf;
    private final StructType readSchema;
    private final StructType dataReadSchema;
    private final StructType partitionSchema;
    private final HashMap<String, String> deviceConf;

    GdsReaderFactory(GdsReadSettings settings, SerializableConfiguration hadoopConf, StructType readSchema, StructType dataReadSchema,
            StructType partitionSchema, Map<String, String> deviceConf)
    {
        this.settings = requireNonNull(settings, "settings is null");
        this.hadoopConf = requireNonNull(hadoopConf, "hadoopConf is null");
        this.readSchema = requireNonNull(readSchema, "readSchema is null");
        this.dataReadSchema = requireNonNull(dataReadSchema, "dataReadSchema is null");
        this.partitionSchema = requireNonNull(partitionSchema, "partitionSchema is null");
        this.deviceConf = new HashMap<>(requireNonNull(deviceConf, "deviceConf is null"));
    }

    @Override
    public boolean supportColumnarReads(InputPartition partition)
    {
        return true;
    }

    @Override
    public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition)
    {
        return new GdsPartitionReader(((GdsInputPartition) partition).slices(), settings, GdsTableState.readOptions(hadoopConf.value(), settings),
                readSchema, dataReadSchema, partitionSchema, deviceConf);
    }

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition)
    {
        return new RowsOfBatches(createColumnarReader(partition));
    }
}
