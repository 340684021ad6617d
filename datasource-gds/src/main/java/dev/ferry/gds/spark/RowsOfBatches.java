package dev.ferry.gds.spark;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.vectorized.ColumnarBatch;

import java.io.IOException;
import java.util.Iterator;

import static java.util.Objects.requireNonNull;

/** Rows for callers that ask for rows (Spark does when columnar reads are switched off): the batches, row by row. */
final class RowsOfBatches
        implements PartitionReader<InternalRow>
{
    private final PartitionReader<ColumnarBatch> batches;
    private Iterator<InternalRow> rows;
    private InternalRow current;

    RowsOfBatches(PartitionReader<ColumnarBatch> batches)
    {
        this.batches = requireNonNull(batches, "batches is null");
    }

    @Override
    public boolean next()
            throws IOException
    {
        while (rows == null || !rows.hasNext()) {
            if (!batches.next()) {
                return false;
            }
            rows = batches.get().rowIterator();
        }
        current = rows.next();
        return true;
    }

    @Override
    public InternalRow get()
    {
        return current;
    }

    @Override
    public CustomTaskMetric[] currentMetricsValues()
    {
        return batches.currentMetricsValues();
    }

    @Override
    public void close()
            throws IOException
    {
        batches.close();
    }
}
