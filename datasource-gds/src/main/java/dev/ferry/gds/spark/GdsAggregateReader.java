package dev.ferry.gds.spark;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.gds.aggregate.AggregatePlan;
import dev.ferry.gds.aggregate.PartialAggregator;
import dev.ferry.gds.io.LocalFiles;
import dev.ferry.gds.metrics.GdsMetric;
import dev.ferry.gds.parquet.FileSlice;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * One task's partial aggregation: on the first {@link #next()} it aggregates all of its slices,
 * from the row groups' row counts where that answers the plan and no pushed filter drops rows, else from decoded batches, then
 * returns the partial rows.
 */
final class GdsAggregateReader
        implements PartitionReader<InternalRow>
{
    private static final Logger log = LoggerFactory.getLogger(GdsAggregateReader.class);

    private final List<FileSlice> slices;
    private final AggregatePlan plan;
    private final Supplier<PartitionReader<ColumnarBatch>> batches;
    private final boolean ignoreMissingFiles;
    private final boolean rowsFiltered;
    private PartitionReader<ColumnarBatch> reader;
    private Iterator<InternalRow> results;
    private InternalRow current;
    private long rowGroupsFromMetadata;
    // Files the metadata-only path skipped (ignoreMissingFiles); the decoding reader counts its own.
    private long filesSkipped;

    /** @param rowsFiltered whether pushed filters drop rows from {@code batches}: then the rows are always decoded and counted */
    GdsAggregateReader(List<FileSlice> slices, AggregatePlan plan, Supplier<PartitionReader<ColumnarBatch>> batches, boolean ignoreMissingFiles,
            boolean rowsFiltered)
    {
        this.rowsFiltered = rowsFiltered;
        this.ignoreMissingFiles = ignoreMissingFiles;
        this.slices = List.copyOf(requireNonNull(slices, "slices is null"));
        this.plan = requireNonNull(plan, "plan is null");
        this.batches = requireNonNull(batches, "batches is null");
    }

    @Override
    public boolean next()
            throws IOException
    {
        if (results == null) {
            results = aggregate().iterator();
        }
        if (!results.hasNext()) {
            current = null;
            return false;
        }
        current = results.next();
        return true;
    }

    private List<InternalRow> aggregate()
            throws IOException
    {
        PartialAggregator aggregator = new PartialAggregator(plan);
        if (plan.answeredByRowCounts() && !rowsFiltered) {
            // The footer's row count of each row group is exact: the reader checks every row group it decodes against it. A row group
            // split over several tasks is counted by its spans, which the planner cut to add up to that count.
            for (FileSlice slice : slices) {
                if (unchanged(slice)) {
                    aggregator.addRows(slice.rows());
                    rowGroupsFromMetadata += slice.rowGroupsStartedHere();
                }
            }
            return aggregator.results();
        }
        reader = batches.get();
        while (reader.next()) {
            aggregator.add(reader.get());
        }
        return aggregator.results();
    }

    /**
     * Whether the slice's file is still the one planned, as the decoding reader checks before it
     * reads: a missing file is skipped under ignoreMissingFiles and fails the task otherwise, a file
     * of another length fails it.
     */
    private boolean unchanged(FileSlice slice)
            throws IOException
    {
        Path path = LocalFiles.localPath(slice.file().path());
        long length;
        try {
            length = Files.size(path);
        }
        catch (NoSuchFileException e) {
            if (ignoreMissingFiles) {
                filesSkipped++;
                log.warn("Skipping missing file {} (ignoreMissingFiles)", slice.file().path());
                return false;
            }
            throw e;
        }
        if (length != slice.file().length()) {
            throw new FerryException(ErrorCategory.USER_ERROR, slice.file().path() + " changed since the scan was planned: " + length
                    + " bytes now, " + slice.file().length() + " when listed");
        }
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
        if (reader != null) {
            CustomTaskMetric[] read = reader.currentMetricsValues();
            CustomTaskMetric[] all = Arrays.copyOf(read, read.length + 1);
            all[read.length] = GdsMetric.ROW_GROUPS_FROM_METADATA.value(rowGroupsFromMetadata);
            return all;
        }
        return new CustomTaskMetric[] {GdsMetric.ROW_GROUPS_FROM_METADATA.value(rowGroupsFromMetadata), GdsMetric.FILES_SKIPPED.value(filesSkipped)};
    }

    @Override
    public void close()
            throws IOException
    {
        if (reader != null) {
            reader.close();
        }
    }
}
