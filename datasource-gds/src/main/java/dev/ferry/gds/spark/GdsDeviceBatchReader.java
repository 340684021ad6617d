package dev.ferry.gds.spark;

import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.GpuResolution;
import dev.ferry.gds.GdsReadSettings;
import dev.ferry.gds.api.DevicePageTraffic;
import dev.ferry.gds.decode.DevicePageCounts;
import dev.ferry.gds.device.DeviceBatch;
import dev.ferry.gds.device.DeviceBatchSource;
import dev.ferry.gds.device.DeviceTarget;
import dev.ferry.gds.io.IoRoute;
import dev.ferry.gds.io.ParquetDataSource;
import dev.ferry.gds.io.RoutedDataSources;
import dev.ferry.gds.parquet.FileSlice;
import dev.ferry.gds.read.ParquetSliceReader;
import dev.ferry.gds.route.ExecutorDevices;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.parquet.ParquetReadOptions;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.ArrowUtils;

import java.io.Closeable;
import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import static java.util.Objects.requireNonNull;

/**
 * One task's device reader: its file slices in turn, each on the route chosen for its file (a
 * device consumer's: GDS or BOUNCE where the topology allows), as {@link DeviceBatch}es in the
 * task's GPU memory, straight from {@link ParquetSliceReader#nextOnDevice}: no row is repacked and
 * no batch is decoded on the host first, except the column chunks the device decoder refuses,
 * which are counted by reason ({@link #counters()}). Device batches hold the file's flat columns;
 * partition columns and pushed row filters are refused with the reason. Unlike the Spark scan's
 * reader it reads one file range at a time (no read pool, no row-group prefetch) and applies neither
 * {@code ignoreMissingFiles} nor {@code ignoreCorruptFiles}: a bad file fails the task, naming it.
 * Not thread-safe: one task.
 */
public final class GdsDeviceBatchReader
        implements Closeable, DeviceBatchSource
{
    private final Iterator<FileSlice> slices;
    private final GdsReadSettings settings;
    private final ParquetReadOptions options;
    private final StructType dataReadSchema;
    private final RoutedDataSources dataSources;
    private final DeviceRuntime runtime;
    private final DeviceStream stream;
    private final DeviceTarget target;
    // Host memory the CPU decoder uses for the chunks the device decoder refuses (uploaded, then freed).
    private final BufferAllocator staging;
    private final Counters totals = new Counters();
    private ParquetDataSource source;
    private ParquetSliceReader sliceReader;

    GdsDeviceBatchReader(List<FileSlice> slices, GdsReadSettings settings, ParquetReadOptions options, StructType readSchema, StructType dataReadSchema,
            Map<String, String> deviceConf)
    {
        this.slices = List.copyOf(requireNonNull(slices, "slices is null")).iterator();
        this.settings = requireNonNull(settings, "settings is null");
        this.options = requireNonNull(options, "options is null");
        this.dataReadSchema = requireNonNull(dataReadSchema, "dataReadSchema is null");
        if (readSchema.fields().length != dataReadSchema.fields().length) {
            throw new IllegalArgumentException("Device batches hold the files' own columns; partition columns cannot be read into them: read "
                    + readSchema.simpleString() + ", of which file columns " + dataReadSchema.simpleString());
        }
        this.runtime = ExecutorDevices.runtime(requireNonNull(deviceConf, "deviceConf is null"));
        // A device consumer wants its batches on the task's own GPU: one not visible here is an error, not another GPU.
        GpuResolution gpu = ExecutorDevices.taskDevice(runtime);
        int device = gpu.match().orElseThrow(() -> new IllegalStateException("No device for this task's device batches: " + gpu.reason())).ordinal();
        this.dataSources = new RoutedDataSources(settings, deviceConf, Optional.empty(), totals::addRouteFallback);
        this.stream = runtime.newStream(device);
        this.target = new DeviceTarget(runtime, device, stream);
        this.staging = ArrowUtils.rootAllocator().newChildAllocator("ferry-gds-device-reader", 0, settings.taskArrowLimitBytes());
    }

    /** The next batch in device memory (its stream synchronized), or empty after the last slice; the caller owns and closes it. */
    @Override
    public Optional<DeviceBatch> next()
            throws IOException
    {
        while (true) {
            if (sliceReader == null) {
                if (!slices.hasNext()) {
                    return Optional.empty();
                }
                FileSlice slice = slices.next();
                source = dataSources.open(slice.file().path());
                sliceReader = new ParquetSliceReader(slice, source, settings, options, dataReadSchema, staging, Optional.empty(), Optional.empty());
                continue;
            }
            Optional<DeviceBatch> batch = sliceReader.nextOnDevice(settings.batchRows(), target);
            if (batch.isPresent()) {
                totals.batches++;
                totals.rows += batch.get().rows();
                return batch;
            }
            closeSlice();
        }
    }

    @Override
    public DeviceRuntime runtime()
    {
        return runtime;
    }

    @Override
    public int device()
    {
        return target.device();
    }

    /** What this reader has read so far, the open slice included. */
    public Counters counters()
    {
        Counters now = totals.copy();
        if (sliceReader != null) {
            now.add(sliceReader);
        }
        if (source != null) {
            now.bytesByRoute.merge(source.route().name(), source.counters().bytes(), Long::sum);
        }
        return now;
    }

    @Override
    public void close()
            throws IOException
    {
        try {
            closeSlice();
        }
        finally {
            stream.close();
            staging.close();
        }
    }

    private void closeSlice()
            throws IOException
    {
        try {
            if (sliceReader != null) {
                totals.add(sliceReader);
                ParquetSliceReader closing = sliceReader;
                sliceReader = null;
                closing.close();
            }
        }
        finally {
            if (source != null) {
                totals.bytesByRoute.merge(source.route().name(), source.counters().bytes(), Long::sum);
                ParquetDataSource closing = source;
                source = null;
                closing.close();
            }
        }
    }

    /**
     * A device read's counters: decoded bytes written to host memory (chunks the device decoder
     * refused, decoded on the CPU and uploaded) and straight to device memory, the refused chunks
     * by reason, and the file bytes each I/O route ({@link IoRoute}) read.
     */
    public static final class Counters
    {
        private long batches;
        private long rows;
        private long decodedHostBytes;
        private long decodedDeviceBytes;
        private long routeFallbacks;
        private DevicePageTraffic devicePages = DevicePageTraffic.NONE;
        private final Map<String, Long> deviceFallbacks = new TreeMap<>();
        private final Map<String, Long> bytesByRoute = new TreeMap<>();

        public long batches()
        {
            return batches;
        }

        public long rows()
        {
            return rows;
        }

        public long decodedHostBytes()
        {
            return decodedHostBytes;
        }

        public long decodedDeviceBytes()
        {
            return decodedDeviceBytes;
        }

        /** Files whose chosen route could not open and were read on another (logged by the data sources). */
        public long routeFallbacks()
        {
            return routeFallbacks;
        }

        /** Column chunks decoded on the CPU and uploaded because the device decoder refused them, by reason. */
        public Map<String, Long> deviceFallbacks()
        {
            return Map.copyOf(deviceFallbacks);
        }

        /** What the device decoder's kernels uploaded, decompressed and read back for the chunks they decoded. */
        public DevicePageTraffic devicePages()
        {
            return devicePages;
        }

        /** File bytes read by route name (HOST, BOUNCE, GDS). */
        public Map<String, Long> bytesByRoute()
        {
            return Map.copyOf(bytesByRoute);
        }

        private void addRouteFallback()
        {
            routeFallbacks++;
        }

        private void add(ParquetSliceReader reader)
        {
            decodedHostBytes += reader.decodedHostBytes();
            decodedDeviceBytes += reader.decodedDeviceBytes();
            reader.deviceFallbacks().forEach((reason, chunks) -> deviceFallbacks.merge(reason, chunks, Long::sum));
            DevicePageCounts pages = reader.devicePageCounts();
            devicePages = devicePages.plus(new DevicePageTraffic(pages.uploadedBytes(), pages.decodedBytes(), pages.framingBytes(), pages.decompressedChunks(),
                    pages.decompressedOnHost(), pages.residentChunks(), pages.residentBodiesInPlace(), pages.residentBodiesStaged(), pages.residentStagedBytes(),
                    pages.residentGivenBack()));
        }

        private Counters copy()
        {
            Counters copy = new Counters();
            copy.batches = batches;
            copy.rows = rows;
            copy.decodedHostBytes = decodedHostBytes;
            copy.decodedDeviceBytes = decodedDeviceBytes;
            copy.routeFallbacks = routeFallbacks;
            copy.devicePages = devicePages;
            copy.deviceFallbacks.putAll(deviceFallbacks);
            copy.bytesByRoute.putAll(bytesByRoute);
            return copy;
        }
    }
}
