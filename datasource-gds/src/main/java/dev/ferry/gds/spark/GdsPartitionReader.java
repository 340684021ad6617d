package dev.ferry.gds.spark;

import dev.ferry.arrow.DirectArrowColumnVector;
import dev.ferry.gds.GdsReadSettings;
import dev.ferry.gds.io.ParquetDataSource;
import dev.ferry.gds.io.RoutedDataSources;
import dev.ferry.gds.metrics.ScanCounters;
import dev.ferry.gds.parquet.CorruptParquetException;
import dev.ferry.gds.parquet.FileSlice;
import dev.ferry.gds.read.DecodedBatch;
import dev.ferry.gds.read.ParquetSliceReader;
import dev.ferry.gds.read.RowFilter;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.parquet.ParquetReadOptions;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.sources.AlwaysTrue;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.ArrowUtils;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static java.util.Objects.requireNonNull;

/**
 * One task's reader: its file slices in turn, each on the route chosen for its file, as columnar
 * batches of Arrow vectors (data columns decoded, partition columns repeated). A batch is valid until
 * the next call to {@link #next()}.
 */
final class GdsPartitionReader
        implements PartitionReader<ColumnarBatch>
{
    private static final Logger log = LoggerFactory.getLogger(GdsPartitionReader.class);

    private final Iterator<FileSlice> slices;
    private final GdsReadSettings settings;
    private final ParquetReadOptions options;
    private final StructType readSchema;
    private final StructType dataReadSchema;
    private final StructType partitionSchema;
    private final StructType requestedPartitions;
    private final RoutedDataSources dataSources;
    private final BufferAllocator allocator;
    private final Optional<ExecutorService> readPool;
    private final Optional<ExecutorService> prefetcher;
    private final ScanCounters counters = new ScanCounters();
    private final Optional<RowFilter> rowFilter;

    private FileSlice slice;
    private ParquetDataSource source;
    private ParquetSliceReader sliceReader;
    private PartitionVectors partitionVectors;
    private ColumnarBatch current;

    GdsPartitionReader(List<FileSlice> slices, GdsReadSettings settings, ParquetReadOptions options, StructType readSchema, StructType dataReadSchema,
            StructType partitionSchema, Map<String, String> deviceConf, List<Filter> dataFilters, List<Filter> exactFilters)
    {
        this.slices = List.copyOf(requireNonNull(slices, "slices is null")).iterator();
        this.settings = requireNonNull(settings, "settings is null");
        this.options = requireNonNull(options, "options is null");
        this.readSchema = requireNonNull(readSchema, "readSchema is null");
        this.dataReadSchema = requireNonNull(dataReadSchema, "dataReadSchema is null");
        this.partitionSchema = requireNonNull(partitionSchema, "partitionSchema is null");
        List<StructField> requested = new ArrayList<>();
        for (StructField field : readSchema.fields()) {
            if (!dataReadSchema.getFieldIndex(field.name()).isDefined()) {
                requested.add(field);
            }
        }
        this.requestedPartitions = new StructType(requested.toArray(new StructField[0]));
        this.rowFilter = settings.filterPushdown() && settings.rowFilter()
                ? RowFilter.compile(requireNonNull(dataFilters, "dataFilters is null"), exactFilters, dataReadSchema, settings.caseSensitive())
                : Optional.empty();
        if (rowFilter.isEmpty() && !exactFilters.isEmpty() && !exactFilters.stream().allMatch(AlwaysTrue.class::isInstance)) {
            // The builder claims exact filters only with the row filter on; Spark will not evaluate them.
            throw new IllegalStateException("Exact pushed filters " + exactFilters + " without a row filter to evaluate them");
        }
        this.allocator = ArrowUtils.rootAllocator().newChildAllocator("ferry-gds-reader", 0, settings.taskArrowLimitBytes());
        this.readPool = settings.readThreads() > 1
                ? Optional.of(Executors.newFixedThreadPool(settings.readThreads(), runnable -> {
                    Thread thread = new Thread(runnable, "ferry-gds-read");
                    thread.setDaemon(true);
                    return thread;
                }))
                : Optional.empty();
        this.dataSources = new RoutedDataSources(settings, requireNonNull(deviceConf, "deviceConf is null"), readPool, counters::addRouteFallback);
        this.prefetcher = settings.prefetchRowGroups()
                ? Optional.of(Executors.newSingleThreadExecutor(runnable -> {
                    Thread thread = new Thread(runnable, "ferry-gds-prefetch");
                    thread.setDaemon(true);
                    return thread;
                }))
                : Optional.empty();
    }

    @Override
    public boolean next()
            throws IOException
    {
        closeCurrent();
        while (true) {
            if (sliceReader == null) {
                if (!slices.hasNext()) {
                    return false;
                }
                openSlice(slices.next());
                continue;
            }
            Optional<DecodedBatch> batch;
            try {
                batch = sliceReader.next(settings.batchRows());
            }
            catch (IOException | RuntimeException e) {
                skipOrRethrow(e);
                closeSlice();
                continue;
            }
            if (batch.isEmpty()) {
                closeSlice();
                continue;
            }
            current = assemble(batch.get());
            return true;
        }
    }

    @Override
    public ColumnarBatch get()
    {
        return current;
    }

    @Override
    public CustomTaskMetric[] currentMetricsValues()
    {
        List<ScanCounters.ReadCountersOf> open = source == null ? List.of() : List.of(new ScanCounters.ReadCountersOf(source.route(), source.counters()));
        return counters.snapshot(open, sliceReader == null ? 0 : sliceReader.decodeNanos(), sliceReader == null ? 0 : sliceReader.ioWaitNanos(),
                sliceReader == null ? 0 : sliceReader.pagesSkipped(), sliceReader == null ? 0 : sliceReader.pageIndexFallbacks(),
                sliceReader == null ? 0 : sliceReader.rowsFilteredOut());
    }

    @Override
    public void close()
            throws IOException
    {
        try {
            closeCurrent();
            closeSlice();
        }
        finally {
            prefetcher.ifPresent(ExecutorService::shutdownNow);
            readPool.ifPresent(ExecutorService::shutdownNow);
            // The scan's Arrow batches are memory Spark's memory manager does not see: their peak
            // goes into the task's peak execution memory, as Ferry's shuffle does with its own.
            TaskContext task = TaskContext.get();
            if (task != null) {
                task.taskMetrics().incPeakExecutionMemory(allocator.getPeakMemoryAllocation());
            }
            allocator.close();
        }
    }

    private void openSlice(FileSlice next)
            throws IOException
    {
        slice = next;
        try {
            source = dataSources.open(next.file().path());
            sliceReader = new ParquetSliceReader(next, source, settings, options, dataReadSchema, allocator, prefetcher, rowFilter);
            partitionVectors = new PartitionVectors(requestedPartitions, partitionSchema, next.file().partitionValues(), settings.caseSensitive(),
                    settings.sessionTimeZone());
        }
        catch (IOException | RuntimeException e) {
            closeSlice();
            skipOrRethrow(e);
        }
    }

    private ColumnarBatch assemble(DecodedBatch batch)
    {
        List<FieldVector> partitions = partitionVectors.create(batch.rows(), allocator);
        ColumnVector[] columns = new ColumnVector[readSchema.fields().length];
        int data = 0;
        int partition = 0;
        for (int index = 0; index < columns.length; index++) {
            StructField field = readSchema.fields()[index];
            boolean isPartition = requestedPartitions.getFieldIndex(field.name()).isDefined();
            FieldVector vector = isPartition ? partitions.get(partition++) : batch.columns().get(data++);
            columns[index] = DirectArrowColumnVector.of(vector);
        }
        // Columns only the exact filters read follow the output's: done with once the rows are filtered.
        for (int extra = data; extra < batch.columns().size(); extra++) {
            batch.columns().get(extra).close();
        }
        return new ColumnarBatch(columns, batch.rows());
    }

    private void skipOrRethrow(Exception error)
            throws IOException
    {
        String file = slice == null ? "?" : slice.file().path();
        boolean missing = error instanceof FileNotFoundException || error instanceof NoSuchFileException;
        if (missing && settings.ignoreMissingFiles()) {
            counters.addFileSkipped();
            log.warn("Skipping missing file {} (ignoreMissingFiles)", file);
            return;
        }
        boolean corrupt = !missing && (error instanceof CorruptParquetException || error instanceof IOException);
        if (corrupt && settings.ignoreCorruptFiles()) {
            counters.addFileSkipped();
            log.warn("Skipping the rest of corrupt file {} (ignoreCorruptFiles): {}", file, error.getMessage());
            return;
        }
        if (error instanceof IOException) {
            throw (IOException) error;
        }
        throw (RuntimeException) error;
    }

    private void closeCurrent()
    {
        if (current != null) {
            current.close();
            current = null;
        }
    }

    private void closeSlice()
            throws IOException
    {
        if (sliceReader != null) {
            counters.addDecodeNanos(sliceReader.decodeNanos());
            counters.addIoWaitNanos(sliceReader.ioWaitNanos());
            counters.addPageIndex(sliceReader.pagesSkipped(), sliceReader.pageIndexFallbacks());
            counters.addRowsFiltered(sliceReader.rowsFilteredOut());
            for (int index = 0; index < sliceReader.rowGroupsStarted(); index++) {
                counters.addRowGroupRead();
            }
            ParquetSliceReader closing = sliceReader;
            sliceReader = null;
            closing.close();
        }
        if (source != null) {
            counters.addSource(source.route(), source.counters());
            ParquetDataSource closing = source;
            source = null;
            closing.close();
        }
    }
}
