package dev.ferry.gds.spark;

import dev.ferry.arrow.DirectArrowColumnVector;
import dev.ferry.device.DeviceMatch;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.GpuResolution;
import dev.ferry.gds.io.AbstractParquetDataSource;
import dev.ferry.gds.io.BounceParquetDataSource;
import dev.ferry.gds.io.CorruptParquetException;
import dev.ferry.gds.io.GdsParquetDataSource;
import dev.ferry.gds.io.HostParquetDataSource;
import dev.ferry.gds.metrics.ScanCounters;
import dev.ferry.gds.plan.FileSlice;
import dev.ferry.gds.plan.FooterCollector;
import dev.ferry.gds.plan.GdsReadSettings;
import dev.ferry.gds.read.DecodedBatch;
import dev.ferry.gds.read.ParquetSliceReader;
import dev.ferry.gds.read.RowFilter;
import dev.ferry.gds.route.DeviceProbe;
import dev.ferry.gds.route.ExecutorDevices;
import dev.ferry.gds.route.RouteChoice;
import dev.ferry.gds.route.RouteChooser;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.parquet.ParquetReadOptions;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
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
import java.nio.file.Path;
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
    private final Map<String, String> deviceConf;
    private RouteChooser routes;
    private DeviceRuntime runtime;
    private final BufferAllocator allocator;
    private final Optional<ExecutorService> readPool;
    private final Optional<ExecutorService> prefetcher;
    private final ScanCounters counters = new ScanCounters();
    private final Optional<RowFilter> rowFilter;

    private FileSlice slice;
    private AbstractParquetDataSource source;
    private ParquetSliceReader sliceReader;
    private PartitionVectors partitionVectors;
    private ColumnarBatch current;

    GdsPartitionReader(List<FileSlice> slices, GdsReadSettings settings, ParquetReadOptions options, StructType readSchema, StructType dataReadSchema,
            StructType partitionSchema, Map<String, String> deviceConf, List<Filter> dataFilters)
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
        this.deviceConf = Map.copyOf(requireNonNull(deviceConf, "deviceConf is null"));
        this.rowFilter = settings.filterPushdown() && settings.rowFilter()
                ? RowFilter.compile(requireNonNull(dataFilters, "dataFilters is null"), dataReadSchema, settings.caseSensitive())
                : Optional.empty();
        this.allocator = ArrowUtils.rootAllocator().newChildAllocator("ferry-gds-reader", 0, settings.taskArrowLimitBytes());
        this.readPool = settings.readThreads() > 1
                ? Optional.of(Executors.newFixedThreadPool(settings.readThreads(), runnable -> {
                    Thread thread = new Thread(runnable, "ferry-gds-read");
                    thread.setDaemon(true);
                    return thread;
                }))
                : Optional.empty();
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
            source = openSource(next);
            sliceReader = new ParquetSliceReader(next, source, settings, options, dataReadSchema, allocator, prefetcher, rowFilter);
            partitionVectors = new PartitionVectors(requestedPartitions, partitionSchema, next.file().partitionValues(), settings.caseSensitive(),
                    settings.sessionTimeZone());
        }
        catch (IOException | RuntimeException e) {
            closeSlice();
            skipOrRethrow(e);
        }
    }

    private AbstractParquetDataSource openSource(FileSlice next)
            throws IOException
    {
        Path path = FooterCollector.localPath(next.file().path());
        Optional<RouteChoice> hostOnly = RouteChooser.withoutDevice(settings.route(), settings.consumer());
        if (hostOnly.isPresent()) {
            // A host read (forced, or auto for a CPU consumer) never needs the device runtime: none is created.
            log.debug("{}: {} route ({})", next.file().path(), hostOnly.get().route(), hostOnly.get().reason());
            return HostParquetDataSource.open(path, next.file().path(), settings.readPlanning(), readPool);
        }
        if (routes == null) {
            runtime = ExecutorDevices.runtime(deviceConf);
            routes = new RouteChooser(settings.route(), settings.consumer(), DeviceProbe.of(runtime), ExecutorDevices.advisor(runtime));
        }
        GpuResolution taskGpu = ExecutorDevices.taskDevice(runtime);
        int device = taskGpu.match().map(DeviceMatch::ordinal).orElse(-1);
        RouteChoice route = taskGpu.match().isPresent() ? routes.choose(next.file().path(), device) : routes.withoutTaskGpu(next.file().path(), taskGpu.reason());
        if (route.fallback()) {
            counters.addRouteFallback();
        }
        log.debug("{}: {} route ({})", next.file().path(), route.route(), route.reason());
        switch (route.route()) {
            case GDS:
                return GdsParquetDataSource.open(runtime, device, path, next.file().path(), settings.readPlanning(), readPool, settings.readThreads());
            case BOUNCE:
                return BounceParquetDataSource.open(runtime, device, path, next.file().path(), settings.readPlanning(), readPool);
            case HOST:
                return HostParquetDataSource.open(path, next.file().path(), settings.readPlanning(), readPool);
        }
        throw new IllegalStateException("Unknown route " + route.route());
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
            AbstractParquetDataSource closing = source;
            source = null;
            closing.close();
        }
    }
}
