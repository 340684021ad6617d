package dev.ferry.gds.spark;

import dev.ferry.gds.aggregate.AggregatePlan;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;

import static java.util.Objects.requireNonNull;

/**
 * Shipped to the tasks of a scan with pushed aggregates: each task reads the plan's input columns
 * with the ordinary columnar reader (which applies the exact pushed filters) and returns its partial results as rows (a few per task).
 */
final class GdsAggregateReaderFactory
        implements PartitionReaderFactory
{
    private static final long serialVersionUID = 1L;

    private final GdsReaderFactory batches;
    private final AggregatePlan plan;
    private final boolean ignoreMissingFiles;
    private final boolean rowsFiltered;

    /** @param rowsFiltered whether pushed filters drop rows, so row-group row counts answer nothing */
    GdsAggregateReaderFactory(GdsReaderFactory batches, AggregatePlan plan, boolean ignoreMissingFiles, boolean rowsFiltered)
    {
        this.rowsFiltered = rowsFiltered;
        this.ignoreMissingFiles = ignoreMissingFiles;
        this.batches = requireNonNull(batches, "batches is null");
        this.plan = requireNonNull(plan, "plan is null");
    }

    @Override
    public boolean supportColumnarReads(InputPartition partition)
    {
        return false;
    }

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition)
    {
        GdsInputPartition input = (GdsInputPartition) partition;
        return new GdsAggregateReader(input.slices(), plan, () -> batches.createColumnarReader(partition), ignoreMissingFiles, rowsFiltered);
    }
}
