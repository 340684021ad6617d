package dev.ferry.gds.read;

import dev.ferry.device.CopyRoute;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.gds.GdsReadSettings;
import dev.ferry.gds.GdsRouteSetting;
import dev.ferry.gds.TestingFiles;
import dev.ferry.gds.TestingSpark;
import dev.ferry.gds.decode.DevicePageCounts;
import dev.ferry.gds.decode.cuda.DeviceBufferKernels;
import dev.ferry.gds.decode.cuda.HostCompiledKernels;
import dev.ferry.gds.decode.cuda.KernelEmulation;
import dev.ferry.gds.device.ArrowDeviceUpload;
import dev.ferry.gds.device.DeviceBatch;
import dev.ferry.gds.device.DeviceColumn;
import dev.ferry.gds.device.DeviceTarget;
import dev.ferry.gds.footer.FooterReader;
import dev.ferry.gds.io.BoundedCodecFactory;
import dev.ferry.gds.io.PrefetchedRanges;
import dev.ferry.gds.io.ReadPlanning;
import dev.ferry.gds.io.AbstractParquetDataSource;
import dev.ferry.gds.io.ParquetDataSource;
import dev.ferry.gds.io.ReadCounters;
import dev.ferry.gds.io.TestingParquetDataSource;
import dev.ferry.gds.parquet.CorruptParquetException;
import dev.ferry.gds.parquet.FileSlice;
import dev.ferry.gds.parquet.SourceFile;
import dev.ferry.gds.plan.PlannedFile;
import dev.ferry.gds.plan.SchemaInference;
import dev.ferry.topology.route.FileConsumer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The comparison behind the device decoder's tests and its gpu-check stage. The device decoder ({@code CudaColumnChunkDecoder} over {@code DeviceChunkDecode}) with its kernels
 * run by the Java emulation, which has the CUDA C sources' index math: for every flat column of the
 * parquet-testing corpus, the pyarrow corpus and Spark-written files (v1 and v2 pages, dictionary and
 * PLAIN, many small pages, dictionaries that give up mid-chunk), device batches equal the CPU
 * decoder's host batches byte for byte after a copy back; chunks the kernels do not take fall back
 * per chunk with a reason; no emulated or device memory is left behind. The GPU itself is checked by
 * the gpu-check stage {@code device-decode}.
 */
public final class DeviceDecodeComparison
{
    /** What one comparison over the corpora found. */
    public record Summary(List<String> compared, List<String> skipped, long deviceChunks, Map<String, Long> fallbacks, long decodedBytes, long hostToDeviceBytes,
            long decodedHostBytes, long decodedDeviceBytes, long hostNanos, long deviceNanos, long pageBytesUploaded, long pageBytesDecoded,
            long chunksDecompressedOnDevice)
    {
        public double hostGigabytesPerSecond()
        {
            return decodedBytes / (double) hostNanos;
        }

        public double deviceGigabytesPerSecond()
        {
            return decodedBytes / (double) deviceNanos;
        }
    }

    /**
     * One file compared: column chunks the device decoder took, fallbacks by reason, what its chunks
     * uploaded, the runtime's host-to-device bytes, and what the device side's data source read and
     * copied back ({@link #compareFileThrough}; empty for the in-memory source).
     */
    public record FileResult(long deviceChunks, Map<String, Long> fallbacks, DevicePageCounts counts, long hostToDeviceBytes, Optional<ReadCounters> deviceSideReads) {}

    private static final int BATCH_ROWS = 1000;
    private static DevicePageCounts lastCounts;
    private static long lastCopied;
    private static long pageBytesUploaded;
    private static long pageBytesDecoded;
    private static long chunksDecompressedOnDevice;

    private static DeviceRuntime runtime;
    private static Optional<Function<DeviceTarget, DeviceBufferKernels>> kernelFactory;
    // The device side's data source (a device route over the runtime); empty: the file's bytes in memory, as the host side reads them.
    private static Optional<Function<Path, ParquetDataSource>> deviceSideSource = Optional.empty();
    private static ReadCounters lastReads;
    private static long hostNanos;
    private static long deviceNanos;

    private DeviceDecodeComparison() {}

    /**
     * Reads every file host side and device side on {@code deviceRuntime} (with {@code kernels} when
     * given, else the backend's own device decoder) and compares the buffers; Spark writes its files
     * under {@code directory}.
     */
    public static Summary run(DeviceRuntime deviceRuntime, Optional<Function<DeviceTarget, DeviceBufferKernels>> kernels, Path directory)
            throws Exception
    {
        runtime = deviceRuntime;
        kernelFactory = kernels;
        hostNanos = 0;
        deviceNanos = 0;
        decodedBytes = 0;
        hostToDeviceBytes = 0;
        decodedHostBytes = 0;
        decodedDeviceBytes = 0;
        pageBytesUploaded = 0;
        pageBytesDecoded = 0;
        chunksDecompressedOnDevice = 0;
        SparkSession spark = TestingSpark.start();
        spark.range(0, 5000, 1, 1).selectExpr(
                        "id",
                        "CASE WHEN id % 7 = 0 THEN NULL ELSE id % 3 = 0 END AS flag",
                        "CASE WHEN id % 5 = 0 THEN NULL ELSE CAST(id * 2654435761 % 2147483647 AS INT) END AS i",
                        "CAST(id % 100 AS SMALLINT) AS small",
                        "CASE WHEN id % 17 = 0 THEN NULL ELSE CAST(id / 3.0 AS FLOAT) END AS f",
                        "id / 7.0 AS d",
                        "CASE WHEN id % 6 = 0 THEN NULL ELSE CAST(id * 1.25 - 1000 AS DECIMAL(9, 2)) END AS dec9",
                        "CAST(id * 123456.789 AS DECIMAL(18, 3)) AS dec18",
                        "CAST(id AS DECIMAL(38, 10)) AS dec38",
                        "CASE WHEN id % 4 = 0 THEN NULL ELSE concat('s', CAST(id % 50 AS STRING), repeat('x', CAST(id % 5 AS INT))) END AS s",
                        "unhex(hex(id * 31)) AS bin",
                        "date_add(DATE '1970-01-01', CAST(id % 20000 AS INT)) AS dt",
                        "timestamp_micros(id * 86400000123) AS ts")
                .write().option("parquet.writer.version", "PARQUET_2_0").option("parquet.page.size", "2048").parquet(directory.resolve("spark-v2").toString());
        spark.range(0, 5000, 1, 1).selectExpr("id", "CAST(id % 10 AS STRING) AS s", "CAST(id % 3 AS INT) AS i")
                .write().option("parquet.enable.dictionary", "true").option("parquet.dictionary.page.size", "1024").option("parquet.page.size", "4096")
                .parquet(directory.resolve("spark-v1").toString());
        // Dictionaries that fill up after some pages: the chunk's later pages are PLAIN (a CPU fallback, replayed).
        spark.range(0, 20000, 1, 1).selectExpr("id", "concat('k', CAST(id AS STRING)) AS s", "CAST(id % 7 AS INT) AS i")
                .write().option("parquet.enable.dictionary", "true").option("parquet.dictionary.page.size", "8192").option("parquet.page.size", "1024")
                .parquet(directory.resolve("spark-mixed").toString());
        List<Path> files = new ArrayList<>();
        Path parquetTesting;
        try {
            parquetTesting = TestingFiles.parquetTesting().resolve("data");
        }
        catch (RuntimeException e) {
            // The GPU machine may carry no parquet-testing checkout: the pyarrow and Spark corpora remain.
            parquetTesting = null;
            System.out.println("parquet-testing corpus not found: " + e.getMessage());
        }
        if (parquetTesting != null && Files.isDirectory(parquetTesting)) {
            files.addAll(parquetFiles(parquetTesting));
        }
        files.addAll(parquetFiles(pyarrowCorpus()));
        List<Path> sparkFiles = new ArrayList<>(parquetFiles(directory.resolve("spark-v2")));
        sparkFiles.addAll(parquetFiles(directory.resolve("spark-v1")));
        sparkFiles.addAll(parquetFiles(directory.resolve("spark-mixed")));
        assertTrue(sparkFiles.size() >= 2, "Spark wrote " + sparkFiles);
        files.addAll(sparkFiles);

        Map<String, Long> fallbacks = new TreeMap<>();
        List<String> compared = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        long deviceChunks = 0;
        for (Path file : files) {
            Optional<Long> result = compare(file, fallbacks);
            if (result.isPresent()) {
                compared.add(file.getFileName().toString());
                deviceChunks += result.get();
            }
            else {
                skipped.add(file.getFileName().toString());
            }
        }
        Summary summary = new Summary(compared, skipped, deviceChunks, fallbacks, decodedBytes, hostToDeviceBytes, decodedHostBytes, decodedDeviceBytes,
                hostNanos, deviceNanos, pageBytesUploaded, pageBytesDecoded, chunksDecompressedOnDevice);
        pageBytesUploaded = 0;
        pageBytesDecoded = 0;
        chunksDecompressedOnDevice = 0;
        decodedBytes = 0;
        hostToDeviceBytes = 0;
        decodedHostBytes = 0;
        decodedDeviceBytes = 0;
        return summary;
    }

    private static long decodedBytes;
    private static long hostToDeviceBytes;
    private static long decodedHostBytes;
    private static long decodedDeviceBytes;

    /**
     * Opens {@code path} (a file with more than one batch in its first row group), takes one device
     * batch with {@code kernels}, closes the batch and the reader mid-row-group, and returns the kernels
     * so the caller can see what they still hold.
     */
    public static DeviceBufferKernels firstDeviceBatchThenClose(DeviceRuntime deviceRuntime, Path path, Function<DeviceTarget, DeviceBufferKernels> kernels)
            throws IOException
    {
        ParquetReadOptions options = readOptions();
        GdsReadSettings settings = settings();
        OpenedFile opened = OpenedFile.of(path, settings, options);
        assertTrue(opened.footer().getBlocks().get(0).getRowCount() > BATCH_ROWS, path + ": one batch must not cover the first row group");
        DeviceBufferKernels[] built = new DeviceBufferKernels[1];
        try (RootAllocator allocator = new RootAllocator();
                DeviceStream stream = deviceRuntime.newStream(0);
                ParquetSliceReader reader = opened.reader(settings, options, allocator)) {
            reader.useDeviceKernels(target -> {
                built[0] = kernels.apply(target);
                return built[0];
            });
            try (DeviceBatch batch = reader.nextOnDevice(BATCH_ROWS, new DeviceTarget(deviceRuntime, 0, stream)).orElseThrow()) {
                assertEquals(BATCH_ROWS, batch.rows());
            }
        }
        return built[0];
    }

    /** The reader's options as the data source builds them: its codec seam lets the device decoder take pages compressed. */
    static ParquetReadOptions readOptions()
    {
        ParquetReadOptions defaults = HadoopReadOptions.builder(new Configuration()).build();
        return HadoopReadOptions.builder(new Configuration()).withCodecFactory(new BoundedCodecFactory(defaults.getCodecFactory(), settings().maxPageBytes())).build();
    }

    /** A file's bytes, its footer, its flat columns and a slice of all its row groups: what every comparison (and DecodeRateGpuCheck) opens a file with. */
    record OpenedFile(byte[] bytes, SourceFile source, ParquetMetadata footer, StructType schema, FileSlice slice)
    {
        static OpenedFile of(Path path, GdsReadSettings settings, ParquetReadOptions options)
                throws IOException
        {
            byte[] bytes = Files.readAllBytes(path);
            SourceFile source = new SourceFile(path.toString(), bytes.length, InternalRow.empty(), List.of());
            try (TestingParquetDataSource footerSource = DeviceDecodeComparison.source(bytes)) {
                ParquetMetadata footer = FooterReader.read(footerSource, options, settings.footerTail(), new PrefetchedRanges());
                StructType schema = flatColumns(SchemaInference.dataSchema(List.of(new PlannedFile(source, footer)), SQLConf.get(), path.toString()));
                int[] rowGroups = new int[footer.getBlocks().size()];
                long rows = 0;
                for (int index = 0; index < rowGroups.length; index++) {
                    rowGroups[index] = index;
                    rows += footer.getBlocks().get(index).getRowCount();
                }
                return new OpenedFile(bytes, source, footer, schema, new FileSlice(source, rowGroups, bytes.length, rows));
            }
        }

        ParquetSliceReader reader(GdsReadSettings settings, ParquetReadOptions options, RootAllocator allocator)
                throws IOException
        {
            return reader(settings, options, allocator, DeviceDecodeComparison.source(bytes));
        }

        ParquetSliceReader reader(GdsReadSettings settings, ParquetReadOptions options, RootAllocator allocator, ParquetDataSource source)
                throws IOException
        {
            return new ParquetSliceReader(slice, source, settings, options, schema, allocator, Optional.empty(), Optional.empty());
        }
    }

    /**
     * Compares one file host against device on {@code deviceRuntime} with {@code kernels} (empty:
     * the backend's own device decoder), byte for byte as {@link #run} does; fails when the host path
     * refuses the file.
     */
    public static FileResult compareFile(DeviceRuntime deviceRuntime, Optional<Function<DeviceTarget, DeviceBufferKernels>> kernels, Path path)
            throws IOException
    {
        return compareFileThrough(deviceRuntime, kernels, path, Optional.empty());
    }

    /**
     * {@link #compareFile} with the device side read through {@code source} (a GDS or BOUNCE data
     * source over {@code deviceRuntime}, closed after the read, which checks its device memory for
     * leaks): the resident path, where chunks stay in device memory as read.
     */
    public static FileResult compareFileThrough(DeviceRuntime deviceRuntime, Optional<Function<DeviceTarget, DeviceBufferKernels>> kernels, Path path,
            Optional<Function<Path, ParquetDataSource>> source)
            throws IOException
    {
        return compareIfReadable(deviceRuntime, kernels, path, source).orElseThrow(() -> new AssertionError(path + ": the host path refuses the file"));
    }

    /** What the resident path did over the corpora: files compared byte for byte, chunks decoded where the read left them, chunks given back, row data copied back. */
    public record ResidentSummary(long files, long residentChunks, long givenBack, long plannedDeviceToHostBytes, long framingBytes, long decodedBytes) {}

    /**
     * Every readable file of the parquet-testing and pyarrow corpora compared host against device,
     * the device side read through {@code source} (a GDS route over {@code deviceRuntime}) with
     * {@code kernels} (empty: the backend's own): the resident path over the corpora. A file the
     * host path reads and the device path refuses fails the comparison.
     */
    public static ResidentSummary residentOverCorpora(DeviceRuntime deviceRuntime, Optional<Function<DeviceTarget, DeviceBufferKernels>> kernels,
            Function<Path, ParquetDataSource> source)
            throws Exception
    {
        List<Path> files = new ArrayList<>();
        try {
            files.addAll(parquetFiles(TestingFiles.parquetTesting().resolve("data")));
        }
        catch (RuntimeException e) {
            System.out.println("parquet-testing corpus not found: " + e.getMessage());
        }
        files.addAll(parquetFiles(pyarrowCorpus()));
        long compared = 0;
        long resident = 0;
        long givenBack = 0;
        long copiedBack = 0;
        long framing = 0;
        long decoded = 0;
        for (Path file : files) {
            Optional<FileResult> result;
            try {
                result = compareIfReadable(deviceRuntime, kernels, file, Optional.of(source));
            }
            catch (CorruptParquetException e) {
                throw new AssertionError(file + ": the device path refuses a file the host path reads: " + e.getMessage(), e);
            }
            if (result.isEmpty()) {
                continue;
            }
            compared++;
            DevicePageCounts counts = result.get().counts();
            resident += counts.residentChunks();
            givenBack += counts.residentGivenBack().values().stream().mapToLong(Long::longValue).sum();
            framing += counts.framingBytes();
            decoded += counts.decodedBytes();
            copiedBack += result.get().deviceSideReads().map(ReadCounters::plannedDeviceToHostBytes).orElse(0L);
        }
        return new ResidentSummary(compared, resident, givenBack, copiedBack, framing, decoded);
    }

    /** {@link #compareFileThrough}, empty when the host path refuses the file (the corpora hold broken and unsupported files). */
    public static Optional<FileResult> compareIfReadable(DeviceRuntime deviceRuntime, Optional<Function<DeviceTarget, DeviceBufferKernels>> kernels, Path path,
            Optional<Function<Path, ParquetDataSource>> source)
            throws IOException
    {
        runtime = deviceRuntime;
        kernelFactory = kernels;
        deviceSideSource = source;
        lastCounts = null;
        lastReads = null;
        try {
            Map<String, Long> fallbacks = new TreeMap<>();
            Optional<Long> chunks = compare(path, fallbacks);
            return chunks.map(count -> new FileResult(count, fallbacks, lastCounts, lastCopied, Optional.ofNullable(lastReads)));
        }
        finally {
            deviceSideSource = Optional.empty();
        }
    }

    /** Reads every row of {@code path} as device batches only (no host side), closing each batch. */
    public static void deviceOnly(DeviceRuntime deviceRuntime, Optional<Function<DeviceTarget, DeviceBufferKernels>> kernels, Path path)
            throws IOException
    {
        ParquetReadOptions options = readOptions();
        GdsReadSettings settings = settings();
        OpenedFile opened = OpenedFile.of(path, settings, options);
        try (RootAllocator allocator = new RootAllocator();
                DeviceStream stream = deviceRuntime.newStream(0);
                ParquetSliceReader reader = opened.reader(settings, options, allocator)) {
            kernels.ifPresent(reader::useDeviceKernels);
            Optional<DeviceBatch> batch;
            while ((batch = reader.nextOnDevice(BATCH_ROWS, new DeviceTarget(deviceRuntime, 0, stream))).isPresent()) {
                batch.get().close();
            }
        }
    }

    /** Compares one file's flat columns host against device; empty when the host path refuses the file (the corpus holds broken and unsupported files). */
    private static Optional<Long> compare(Path path, Map<String, Long> fallbacks)
            throws IOException
    {
        ParquetReadOptions options = readOptions();
        GdsReadSettings settings = settings();
        OpenedFile opened;
        try {
            opened = OpenedFile.of(path, settings, options);
        }
        catch (RuntimeException | IOException e) {
            return Optional.empty();
        }
        StructType schema = opened.schema();
        if (schema.fields().length == 0) {
            return Optional.empty();
        }
        List<List<FieldVector>> hostBatches = new ArrayList<>();
        try (RootAllocator allocator = new RootAllocator()) {
            try {
                try (ParquetSliceReader reader = opened.reader(settings, options, allocator)) {
                    Optional<DecodedBatch> batch;
                    long began = System.nanoTime();
                    while ((batch = reader.next(BATCH_ROWS)).isPresent()) {
                        hostBatches.add(batch.get().columns());
                    }
                    hostNanos += System.nanoTime() - began;
                }
            }
            catch (RuntimeException | IOException e) {
                hostBatches.forEach(columns -> columns.forEach(FieldVector::close));
                return Optional.empty();
            }
            try {
                return Optional.of(compareDevice(path, opened, settings, options, allocator, hostBatches, fallbacks));
            }
            finally {
                hostBatches.forEach(columns -> columns.forEach(FieldVector::close));
            }
        }
    }

    private static long compareDevice(Path path, OpenedFile opened, GdsReadSettings settings, ParquetReadOptions options, RootAllocator allocator,
            List<List<FieldVector>> hostBatches, Map<String, Long> fallbacks)
            throws IOException
    {
        String file = path.getFileName().toString();
        StructType schema = opened.schema();
        long hostDecoded;
        long deviceDecoded;
        long copiedBefore = runtime.bytesCopied(CopyRoute.HOST_TO_DEVICE);
        long uploaded = 0;
        long deviceChunks;
        ParquetDataSource deviceSide = deviceSideSource.isPresent() ? deviceSideSource.get().apply(path) : source(opened.bytes());
        try (deviceSide;
                DeviceStream stream = runtime.newStream(0);
                ParquetSliceReader reader = opened.reader(settings, options, allocator, deviceSide)) {
            DeviceTarget target = new DeviceTarget(runtime, 0, stream);
            List<DeviceBufferKernels> kernels = new ArrayList<>();
            kernelFactory.ifPresent(factory -> reader.useDeviceKernels(forTarget -> {
                DeviceBufferKernels built = factory.apply(forTarget);
                kernels.add(built);
                return built;
            }));
            int batchIndex = 0;
            Optional<DeviceBatch> batch;
            while (true) {
                long began = System.nanoTime();
                batch = reader.nextOnDevice(BATCH_ROWS, target);
                deviceNanos += System.nanoTime() - began;
                if (batch.isEmpty()) {
                    break;
                }
                try (DeviceBatch device = batch.get()) {
                    assertTrue(batchIndex < hostBatches.size(), file + ": the device path yields more batches than the host path");
                    List<FieldVector> host = hostBatches.get(batchIndex);
                    assertEquals(host.get(0).getValueCount(), device.rows(), file + " batch " + batchIndex + " rows");
                    for (int column = 0; column < host.size(); column++) {
                        uploaded += assertSameBuffers(file + " batch " + batchIndex + " column " + schema.fields()[column].name(), host.get(column),
                                device.columns().get(column), stream);
                    }
                }
                batchIndex++;
            }
            assertEquals(hostBatches.size(), batchIndex, file + ": batches");
            long fallbackChunks = 0;
            for (Map.Entry<String, Long> entry : reader.deviceFallbacks().entrySet()) {
                fallbacks.merge(entry.getKey(), entry.getValue(), Long::sum);
                fallbackChunks += entry.getValue();
            }
            deviceChunks = (long) reader.rowGroupsStarted() * schema.fields().length - fallbackChunks;
            lastCounts = reader.devicePageCounts();
            pageBytesUploaded += lastCounts.uploadedBytes();
            pageBytesDecoded += lastCounts.decodedBytes();
            chunksDecompressedOnDevice += lastCounts.decompressedChunks();
            hostDecoded = reader.decodedHostBytes();
            deviceDecoded = reader.decodedDeviceBytes();
            if (deviceSideSource.isPresent() && deviceSide instanceof AbstractParquetDataSource counted) {
                lastReads = counted.counters();
            }
            for (DeviceBufferKernels built : kernels) {
                if (built instanceof KernelEmulation emulation) {
                    assertEquals(0, emulation.allocatedBytes(), file + ": emulated device memory left behind");
                }
                if (built instanceof HostCompiledKernels host) {
                    assertEquals(0, host.allocatedBytes(), file + ": host kernel memory left behind");
                    host.close();
                }
            }
        }
        long copied = runtime.bytesCopied(CopyRoute.HOST_TO_DEVICE) - copiedBefore;
        lastCopied = copied;
        decodedBytes += uploaded;
        hostToDeviceBytes += copied;
        decodedHostBytes += hostDecoded;
        decodedDeviceBytes += deviceDecoded;
        assertEquals(uploaded, hostDecoded + deviceDecoded, file + ": every compared byte was counted as decoded into host or device memory");
        assertTrue(hostDecoded <= copied, file + ": bytes decoded on the host reached the device by a counted copy");
        return deviceChunks;
    }

    // Copies the device column back and compares each buffer with the host vector's, returning the bytes compared.
    private static long assertSameBuffers(String what, FieldVector host, DeviceColumn device, DeviceStream stream)
    {
        List<Long> lengths = ArrowDeviceUpload.lengths(host);
        assertEquals(lengths, device.lengths(), what + ": buffer lengths");
        assertEquals(host.getNullCount(), device.nullCount(), what + ": nulls");
        List<ArrowBuf> hostBuffers = host.getFieldBuffers();
        long total = 0;
        for (int index = 0; index < lengths.size(); index++) {
            int length = Math.toIntExact(lengths.get(index));
            DeviceBuffer buffer = device.buffers().get(index);
            ByteBuffer back = ByteBuffer.allocate(length);
            stream.copyToHost(buffer, 0, back);
            stream.synchronize();
            back.flip();
            ByteBuffer expected = hostBuffers.get(index).nioBuffer(0, length);
            assertEquals(expected, back, what + ": buffer " + index + " differs");
            total += length;
        }
        return total;
    }

    // Device batches hold flat columns; nested ones and NullType have no device layout.
    private static StructType flatColumns(StructType schema)
    {
        List<StructField> flat = new ArrayList<>();
        for (StructField field : schema.fields()) {
            if (!(field.dataType() instanceof StructType || field.dataType() instanceof ArrayType || field.dataType() instanceof MapType
                    || field.dataType() instanceof NullType)) {
                flat.add(field);
            }
        }
        return new StructType(flat.toArray(new StructField[0]));
    }

    private static TestingParquetDataSource source(byte[] bytes)
    {
        return new TestingParquetDataSource(bytes, new ReadPlanning(1 << 20, 64 << 20, 64 << 20), Optional.empty());
    }

    static List<Path> parquetFiles(Path directory)
            throws IOException
    {
        try (Stream<Path> listing = Files.list(directory)) {
            return listing.filter(path -> path.getFileName().toString().endsWith(".parquet")).sorted().collect(Collectors.toList());
        }
    }

    static Path pyarrowCorpus()
            throws URISyntaxException
    {
        return Path.of(DeviceDecodeComparison.class.getResource("/corpus/pyarrow").toURI());
    }

    static GdsReadSettings settings()
    {
        return new GdsReadSettings(GdsRouteSetting.HOST, FileConsumer.CPU, BATCH_ROWS, 1, 1 << 20, 64 << 20, 64 << 20, 64 * 1024, 512 << 20, 1L << 30, false, true, 1,
                false, false, false, "UTC", "CORRECTED", "CORRECTED", false, 0, true, true, true);
    }
}
