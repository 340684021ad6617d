package dev.ferry.gds.read;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.gds.GdsConfigKeys;
import dev.ferry.gds.GdsReadSettings;
import dev.ferry.gds.decode.ColumnChunkDecoder;
import dev.ferry.gds.decode.DeviceDecoders;
import dev.ferry.gds.decode.DevicePageCounts;
import dev.ferry.gds.decode.cuda.DeviceBufferKernels;
import dev.ferry.gds.decode.cuda.DeviceChunkDecode;
import dev.ferry.gds.decode.DatetimeRules;
import dev.ferry.gds.decode.DecodeSupport;
import dev.ferry.gds.decode.FileShape;
import dev.ferry.gds.decode.PageChecks;
import dev.ferry.gds.decode.ShapeBuilder;
import dev.ferry.gds.device.ArrowDeviceUpload;
import dev.ferry.gds.device.DeviceBatch;
import dev.ferry.gds.device.DeviceColumn;
import dev.ferry.gds.device.DeviceTarget;
import dev.ferry.gds.footer.FooterCache;
import dev.ferry.gds.footer.FooterReader;
import dev.ferry.gds.io.BoundedCodecFactory;
import dev.ferry.gds.io.CompressedPageCapture;
import dev.ferry.gds.io.DeviceParquetDataSource;
import dev.ferry.gds.io.DiskRange;
import dev.ferry.gds.io.PageArrays;
import dev.ferry.gds.io.ParquetDataSource;
import dev.ferry.gds.io.PrefetchedRanges;
import dev.ferry.gds.io.ResidentChunk;
import dev.ferry.gds.io.SeamInputFile;
import dev.ferry.gds.parquet.CalendarRebase;
import dev.ferry.gds.parquet.CorruptParquetException;
import dev.ferry.gds.parquet.FileSlice;
import dev.ferry.gds.parquet.RowSpan;
import dev.ferry.gds.parquet.UnsupportedParquetException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.VersionParser;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.FileMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.internal.filter2.columnindex.ColumnIndexFilter;
import org.apache.parquet.internal.filter2.columnindex.ColumnIndexStore;
import org.apache.parquet.internal.filter2.columnindex.RowRanges;
import org.apache.parquet.schema.MessageType;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.Function;

import static java.util.Objects.requireNonNull;

/**
 * Reads the row groups of one {@link FileSlice} through a data source: footer from one tail read,
 * each row group's column chunks fetched in one planned (coalesced, parallel) read, then pages
 * decoded column by column into Arrow. parquet-mr parses page headers and decompresses; every byte
 * it asks for comes from the planned ranges. A row group the planner split over several tasks is
 * read by its {@link RowSpan}: only the pages holding the span's rows, only those rows kept
 * ({@link RowSpanRanges}).
 */
public final class ParquetSliceReader
        implements Closeable
{
    private static final Logger log = LoggerFactory.getLogger(ParquetSliceReader.class);
    private static final String SPARK_TIME_ZONE_KEY = "org.apache.spark.timeZone";

    private final ParquetDataSource source;
    private final GdsReadSettings settings;
    private final BufferAllocator allocator;
    private final PrefetchedRanges prefetched = new PrefetchedRanges();
    private final List<BlockMetaData> blocks;
    // Per block: the rows of it this slice reads, null for all.
    private final List<RowSpan> spans;
    private FileShape shape;
    // Set once, by the first device batch before any row group starts: the decode seam's implementation for device batches.
    private boolean deviceShapeChosen;
    private Optional<Function<DeviceTarget, DeviceBufferKernels>> deviceKernels = Optional.empty();
    private final ParquetFileReader reader;
    // Where the codecs put decompressed pages; the flat decoders give each page's array back when done with it.
    private final PageArrays pageArrays;
    // The codec seam that lets the device decoder take a chunk's pages compressed (parquet-mr's own factory has none).
    private final Optional<CompressedPageCapture> capture;
    private final VersionParser.ParsedVersion writerVersion;
    private final Set<CompressionCodecName> checkedCodecs = new HashSet<>();
    private final Optional<ExecutorService> prefetcher;
    private Future<Fetched> ahead;
    // The slice's pushed filters for page-index skipping; null reads whole row groups.
    private final FilterCompat.Filter pageFilter;
    private final Set<ColumnPath> requestedPaths = new HashSet<>();
    private long pagesSkipped;
    private long pageIndexFallbacks;
    private int nextBlock;
    private long rowsLeft;
    // A split row group read whole because a column cannot skip rows: rows decoded and dropped before the span starts.
    private long rowsToDrop;
    // Whether the current row group's reading ends at its last row, where the decoders must be exhausted.
    private boolean readsToLastRow;
    private long spansReadWhole;
    private long decodeNanos;
    private long ioWaitNanos;
    // Row-level evaluation of the pushed filters; empty when there are none it can evaluate.
    private final Optional<RowFilter> rowFilter;
    private int[] selected = new int[0];
    private long rowsFilteredOut;
    // The current row group's encodings by column path, for the decode seam's per-chunk device answer.
    private Map<ColumnPath, Set<Encoding>> rowGroupEncodings = Map.of();
    // Chunks decoded on the CPU and uploaded because the device decoder refused them, by reason.
    private final Map<String, Long> deviceFallbacks = new TreeMap<>();
    // The columns whose chunk in the current row group was counted as a device fallback: one count per chunk, not per batch.
    private final Set<Integer> fallbackCountedColumns = new HashSet<>();
    // Decoded bytes (Arrow validity, offsets, values) written to host memory and straight to device memory.
    private long decodedHostBytes;
    private long decodedDeviceBytes;
    private final DevicePageCounts devicePageCounts = new DevicePageCounts();
    // Device batches: the target, and this row group's chunks a device route left in device memory for the decoders (closed once started).
    private DeviceTarget deviceTarget;
    private Map<ColumnPath, ResidentChunk> residentChunks = Map.of();
    private volatile boolean closed;

    public ParquetSliceReader(FileSlice slice, ParquetDataSource source, GdsReadSettings settings, ParquetReadOptions options,
            StructType dataReadSchema, BufferAllocator allocator, Optional<ExecutorService> prefetcher, Optional<RowFilter> rowFilter)
            throws IOException
    {
        requireNonNull(slice, "slice is null");
        this.rowFilter = requireNonNull(rowFilter, "rowFilter is null");
        this.prefetcher = requireNonNull(prefetcher, "prefetcher is null");
        this.source = requireNonNull(source, "source is null");
        this.settings = requireNonNull(settings, "settings is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
        if (source.size() != slice.file().length()) {
            throw new FerryException(ErrorCategory.USER_ERROR, source.id() + " changed since the scan was planned: " + source.size()
                    + " bytes now, " + slice.file().length() + " when listed");
        }
        Optional<ParquetMetadata> cached = FooterCache.get(slice.file(), settings.footerCacheEntries());
        ParquetMetadata footer;
        if (cached.isPresent()) {
            footer = cached.get();
        }
        else {
            footer = FooterReader.read(source, options, settings.footerTail(), prefetched);
            FooterCache.put(slice.file(), footer, settings.footerCacheEntries());
        }
        FileMetaData metadata = footer.getFileMetaData();
        this.blocks = new ArrayList<>();
        this.spans = new ArrayList<>();
        int[] rowGroups = slice.rowGroups();
        RowSpan[] rowSpans = slice.rowSpans();
        for (int position = 0; position < rowGroups.length; position++) {
            int index = rowGroups[position];
            if (index >= footer.getBlocks().size()) {
                throw new FerryException(ErrorCategory.USER_ERROR, source.id() + " changed since the scan was planned: row group " + index + " is gone");
            }
            BlockMetaData block = footer.getBlocks().get(index);
            if (rowSpans[position] != null && rowSpans[position].to() > block.getRowCount()) {
                throw new FerryException(ErrorCategory.USER_ERROR, source.id() + " changed since the scan was planned: row group " + index + " has "
                        + block.getRowCount() + " rows, the plan reads " + rowSpans[position]);
            }
            blocks.add(block);
            spans.add(rowSpans[position]);
        }
        this.shape = shapeOf(source.id(), metadata, settings, dataReadSchema);
        checkReadable(shape.requestedSchema(), options);
        for (ColumnDescriptor column : shape.requestedSchema().getColumns()) {
            requestedPaths.add(ColumnPath.get(column.getPath()));
        }
        this.pageFilter = slice.pageFilter() == null ? null : FilterCompat.get(slice.pageFilter());
        // Only the column-index level: row groups were already chosen on the driver, and the reader's
        // block list must stay the slice's so each readNext* call reads the row group this reader fetched.
        ParquetReadOptions readerOptions = pageFilter == null ? options
                : ParquetReadOptions.builder().copy(options).withRecordFilter(pageFilter).useColumnIndexFilter(true)
                        .useStatsFilter(false).useDictionaryFilter(false).useBloomFilter(false).build();
        this.writerVersion = parseWriterVersion(metadata.getCreatedBy());
        SeamInputFile file = new SeamInputFile(source, prefetched);
        ParquetFileReader opened;
        try {
            opened = ParquetFileReader.open(file, new ParquetMetadata(metadata, blocks), readerOptions, file.newStream());
        }
        catch (RuntimeException e) {
            throw new CorruptParquetException(source.id(), "cannot open: " + e.getMessage(), e);
        }
        this.reader = opened;
        this.pageArrays = options.getCodecFactory() instanceof BoundedCodecFactory codecs ? codecs.pageArrays() : new PageArrays();
        this.capture = options.getCodecFactory() instanceof BoundedCodecFactory codecs ? Optional.of(codecs.capture()) : Optional.empty();
        reader.setRequestedSchema(shape.requestedSchema());
        prefetched.clear();
    }

    /** How {@code file}'s columns become {@code dataReadSchema}'s, with the file's datetime rules: the CPU decoders of a reader. */
    static FileShape shapeOf(String file, FileMetaData metadata, GdsReadSettings settings, StructType dataReadSchema)
    {
        String rebaseZone = Optional.ofNullable(metadata.getKeyValueMetaData().get(SPARK_TIME_ZONE_KEY)).orElse(settings.sessionTimeZone());
        DatetimeRules rules = new DatetimeRules(CalendarRebase.forDatetime(metadata, settings.datetimeRebaseMode()),
                CalendarRebase.forInt96(metadata, settings.int96RebaseMode()), rebaseZone,
                settings.int96TimestampConversion() && (metadata.getCreatedBy() == null || !metadata.getCreatedBy().startsWith("parquet-mr")));
        return new ShapeBuilder(file, settings.caseSensitive(), rules).build(dataReadSchema, metadata.getSchema());
    }

    /** The next batch of at most {@code maxRows} rows, or empty at the end of the slice. */
    public Optional<DecodedBatch> next(int maxRows)
            throws IOException
    {
        while (true) {
            while (rowsLeft == 0) {
                if (nextBlock == blocks.size()) {
                    return Optional.empty();
                }
                startRowGroup(nextBlock++);
            }
            if (rowsToDrop > 0) {
                dropLeadingRows(maxRows);
                continue;
            }
            int rows = (int) Math.min(maxRows, rowsLeft);
            long start = System.nanoTime();
            List<FieldVector> vectors = new ArrayList<>();
            int kept = rows;
            try {
                if (rowFilter.isPresent()) {
                    kept = decodeMatching(vectors, rows);
                }
                else {
                    for (ColumnChunkDecoder column : shape.columns()) {
                        vectors.add(decode(column, rows));
                    }
                }
                if (rows == rowsLeft && readsToLastRow) {
                    // The row group's last batch: a nested leaf with entries left holds more rows than the row group says.
                    for (ColumnChunkDecoder column : shape.columns()) {
                        column.checkExhausted(source.id(), blocks.get(nextBlock - 1).getStartingPos());
                    }
                }
            }
            catch (RuntimeException e) {
                vectors.forEach(vector -> {
                    if (vector != null) {
                        vector.close();
                    }
                });
                throw e;
            }
            finally {
                decodeNanos += System.nanoTime() - start;
            }
            rowsLeft -= rows;
            for (FieldVector vector : vectors) {
                decodedHostBytes += vector.getBufferSize();
            }
            if (kept > 0) {
                return Optional.of(new DecodedBatch(vectors, kept));
            }
            // No row of this batch can match: nothing for Spark, go on to the next one.
            vectors.forEach(FieldVector::close);
        }
    }

    /**
     * The next batch of at most {@code maxRows} rows with every column in {@code target}'s device
     * memory (stream synchronized), or empty at the end of the slice: each column chunk the decode
     * seam's device answer takes is decoded through {@link ColumnChunkDecoder#decodeToDevice}; the
     * others are decoded on the CPU and uploaded, counted by reason ({@link #deviceFallbacks}). The
     * caller owns the batch. Device batches hold flat columns; pushed row filters are not evaluated
     * on them yet.
     */
    public Optional<DeviceBatch> nextOnDevice(int maxRows, DeviceTarget target)
            throws IOException
    {
        requireNonNull(target, "target is null");
        if (rowFilter.isPresent()) {
            throw new IllegalStateException("pushed row filters are not evaluated on device batches yet");
        }
        if (!deviceShapeChosen && nextBlock == 0 && rowsLeft == 0) {
            shape = DeviceDecoders.forTarget(shape, target, deviceKernels, source.id(), capture, devicePageCounts);
            deviceTarget = target;
        }
        deviceShapeChosen = true;
        while (rowsLeft == 0) {
            if (nextBlock == blocks.size()) {
                return Optional.empty();
            }
            startRowGroup(nextBlock++);
        }
        if (rowsToDrop > 0) {
            throw new IllegalStateException(source.id() + ": a row group split by rows is not read into device batches (the planner splits only for host decoding)");
        }
        int rows = (int) Math.min(maxRows, rowsLeft);
        long start = System.nanoTime();
        List<DeviceColumn> columns = new ArrayList<>();
        boolean success = false;
        try {
            for (int index = 0; index < shape.columns().size(); index++) {
                ColumnChunkDecoder column = shape.columns().get(index);
                DecodeSupport support = column.deviceSupport(rowGroupEncodings);
                if (support.supported()) {
                    DeviceColumn decoded = decodeToDevice(column, rows, target);
                    columns.add(decoded);
                    if (column.decodesIntoDeviceMemory()) {
                        decodedDeviceBytes += bytes(decoded);
                    }
                    else {
                        decodedHostBytes += bytes(decoded);
                    }
                    continue;
                }
                if (fallbackCountedColumns.add(index) && deviceFallbacks.merge(support.reason(), 1L, Long::sum) == 1) {
                    log.info("{}: column {} decoded on the CPU for a device batch: {}", source.id(), column.field().name(), support.reason());
                }
                try (FieldVector host = decode(column, rows)) {
                    DeviceColumn uploaded = ArrowDeviceUpload.upload(host, column.field().dataType(), target);
                    columns.add(uploaded);
                    decodedHostBytes += bytes(uploaded);
                }
            }
            if (rows == rowsLeft && readsToLastRow) {
                for (ColumnChunkDecoder column : shape.columns()) {
                    column.checkExhausted(source.id(), blocks.get(nextBlock - 1).getStartingPos());
                }
            }
            target.stream().synchronize();
            success = true;
        }
        finally {
            decodeNanos += System.nanoTime() - start;
            if (!success) {
                columns.forEach(column -> column.buffers().forEach(DeviceBuffer::close));
            }
        }
        rowsLeft -= rows;
        return Optional.of(new DeviceBatch(target.device(), rows, columns));
    }

    /**
     * Device batches decode with {@code kernels} whatever the backend (tests run the emulated kernels
     * on the simulated backend); call before the first {@link #nextOnDevice}.
     */
    public void useDeviceKernels(Function<DeviceTarget, DeviceBufferKernels> kernels)
    {
        if (deviceShapeChosen) {
            throw new IllegalStateException("device batches already started");
        }
        deviceKernels = Optional.of(requireNonNull(kernels, "kernels is null"));
    }

    /** Column chunks {@link #nextOnDevice} decoded on the CPU because the device decoder refused them, by reason (one per chunk). */
    public Map<String, Long> deviceFallbacks()
    {
        return Map.copyOf(deviceFallbacks);
    }

    /**
     * Decoded bytes (the Arrow buffers' data: validity, offsets, values) this reader wrote to host
     * memory: every host batch, and the device batches' columns decoded on the CPU and uploaded.
     */
    public long decodedHostBytes()
    {
        return decodedHostBytes;
    }

    /** Decoded bytes of device batches written straight into device memory, never in host memory. */
    public long decodedDeviceBytes()
    {
        return decodedDeviceBytes;
    }

    /** What the device decoder uploaded for the chunks it decoded (page bodies as stored, compressed where they were). */
    public DevicePageCounts devicePageCounts()
    {
        return devicePageCounts;
    }

    private static long bytes(DeviceColumn column)
    {
        return column.lengths().stream().mapToLong(Long::longValue).sum();
    }

    // Device memory running out (a FerryException) is the device's limit, not the file's bytes: it passes through untranslated.
    private DeviceColumn decodeToDevice(ColumnChunkDecoder column, int rows, DeviceTarget target)
    {
        try {
            return column.decodeToDevice(rows, target, allocator, settings.sessionTimeZone(), source.id());
        }
        catch (FerryException e) {
            throw e;
        }
        catch (ArithmeticException e) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Value out of range in column " + column.field().name() + " of " + source.id() + ": " + e.getMessage(), e);
        }
        catch (OutOfMemoryException e) {
            throw overArrowLimit(column, e);
        }
        catch (RuntimeException e) {
            throw new CorruptParquetException(source.id(), "cannot decode column " + String.join(", ", column.leafPaths()) + " (" + column.position() + "): "
                    + describe(e), e);
        }
    }

    /** Rows the row filter dropped so far: Spark's filters would have rejected every one of them. */
    public long rowsFilteredOut()
    {
        return rowsFilteredOut;
    }

    /**
     * Late materialization: decodes the columns the pushed filters read, evaluates them, and decodes
     * the other columns only for the rows that may match (the flat path skips the rest; the general
     * path decodes every row and is compacted). Fills {@code vectors} (every column, compacted to
     * the kept rows) and returns how many rows were kept.
     */
    private int decodeMatching(List<FieldVector> vectors, int rows)
    {
        List<ColumnChunkDecoder> columns = shape.columns();
        RowFilter filter = rowFilter.get();
        for (int index = 0; index < columns.size(); index++) {
            vectors.add(filter.reads(index) ? decode(columns.get(index), rows) : null);
        }
        if (selected.length < rows) {
            selected = new int[rows];
        }
        int kept = filter.select(vectors, rows, selected);
        rowsFilteredOut += rows - kept;
        for (int index = 0; index < columns.size(); index++) {
            ColumnChunkDecoder column = columns.get(index);
            if (filter.reads(index)) {
                if (kept < rows) {
                    vectors.set(index, BatchCompaction.keep(vectors.get(index), rows, selected, kept, allocator));
                }
            }
            else if (kept == rows) {
                vectors.set(index, decode(column, rows));
            }
            else if (column.canDecodeSelected()) {
                vectors.set(index, decodeSelected(column, rows, kept));
            }
            else {
                // In the list before compacting, so a failure closes it with the rest.
                vectors.set(index, decode(column, rows));
                vectors.set(index, BatchCompaction.keep(vectors.get(index), rows, selected, kept, allocator));
            }
        }
        return kept;
    }

    private FieldVector decodeSelected(ColumnChunkDecoder column, int rows, int kept)
    {
        try {
            return column.decodeSelected(rows, selected, kept, allocator, settings.sessionTimeZone(), source.id());
        }
        catch (FerryException e) {
            throw e;
        }
        catch (ArithmeticException e) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Value out of range in column " + column.field().name() + " of " + source.id() + ": " + e.getMessage(), e);
        }
        catch (OutOfMemoryException e) {
            throw overArrowLimit(column, e);
        }
        catch (RuntimeException e) {
            throw new CorruptParquetException(source.id(), "cannot decode column " + String.join(", ", column.leafPaths()) + " (" + column.position() + "): "
                    + describe(e), e);
        }
    }

    /** Time the task waited for column chunks: all of the reading without prefetch, what prefetch did not hide with it. */
    public long ioWaitNanos()
    {
        return ioWaitNanos;
    }

    /** Row groups started so far. */
    public int rowGroupsStarted()
    {
        return nextBlock;
    }

    public long decodeNanos()
    {
        return decodeNanos;
    }

    /** Pages of the requested columns that page-index skipping left unread. */
    public long pagesSkipped()
    {
        return pagesSkipped;
    }

    /**
     * Row groups read whole because some column cannot skip rows: with a page filter, or split by
     * rows (the span's task decodes from the row group's first row and drops the rows before its span).
     */
    public long pageIndexFallbacks()
    {
        return pageIndexFallbacks + spansReadWhole;
    }

    /**
     * Decodes and drops up to {@code maxRows} of the rows before the span of a split row group read
     * whole ({@link #readSpanWhole}): decoders that cannot skip rows reach the span's first row only
     * by decoding the rows before it.
     */
    private void dropLeadingRows(int maxRows)
    {
        int rows = (int) Math.min(maxRows, rowsToDrop);
        long start = System.nanoTime();
        try {
            for (ColumnChunkDecoder column : shape.columns()) {
                decode(column, rows).close();
            }
        }
        finally {
            decodeNanos += System.nanoTime() - start;
        }
        rowsToDrop -= rows;
        rowsLeft -= rows;
    }

    private FieldVector decode(ColumnChunkDecoder column, int rows)
    {
        try {
            return column.decode(rows, allocator, settings.sessionTimeZone(), source.id());
        }
        catch (FerryException e) {
            throw e;
        }
        catch (ArithmeticException e) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Value out of range in column " + column.field().name() + " of " + source.id() + ": " + e.getMessage(), e);
        }
        catch (OutOfMemoryException e) {
            throw overArrowLimit(column, e);
        }
        catch (RuntimeException e) {
            throw new CorruptParquetException(source.id(), "cannot decode column " + String.join(", ", column.leafPaths()) + " (" + column.position() + "): "
                    + describe(e), e);
        }
    }

    /**
     * The task's Arrow limit, not the file's bytes: a categorized resource error naming the key, so
     * that ignoreCorruptFiles never skips a healthy file because a batch did not fit.
     */
    private FerryException overArrowLimit(ColumnChunkDecoder column, OutOfMemoryException e)
    {
        return new FerryException(ErrorCategory.INSUFFICIENT_RESOURCES, "Decoding column " + String.join(", ", column.leafPaths()) + " of " + source.id()
                + " needs more Arrow memory than " + GdsConfigKeys.TASK_ARROW_LIMIT_BYTES.name() + " (" + settings.taskArrowLimitBytes()
                + " bytes) allows; lower " + GdsConfigKeys.BATCH_ROWS.name() + " or raise the limit: " + e.getMessage(), e);
    }

    private void startRowGroup(int index)
            throws IOException
    {
        prefetched.clear();
        fallbackCountedColumns.clear();
        rowsToDrop = 0;
        readsToLastRow = true;
        Fetched fetched = take(index);
        if (prefetcher.isPresent() && index + 1 < blocks.size()) {
            // Read the next row group's chunks while this one decodes.
            int next = index + 1;
            ahead = prefetcher.get().submit(() -> fetch(next));
        }
        fetched.buffers().forEach(prefetched::add);
        residentChunks = fetched.resident();
        try {
            readPages(index);
        }
        finally {
            // The decoders copied what they need from the resident chunks (or gave them back): their device memory goes now.
            closeResident(residentChunks);
            residentChunks = Map.of();
        }
    }

    private static void closeResident(Map<ColumnPath, ResidentChunk> chunks)
    {
        chunks.values().forEach(ResidentChunk::close);
    }

    private Fetched take(int index)
            throws IOException
    {
        long start = System.nanoTime();
        try {
            if (ahead == null) {
                return fetch(index);
            }
            Future<Fetched> pending = ahead;
            ahead = null;
            return pending.get();
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("Interrupted while reading " + source.id());
        }
        catch (ExecutionException e) {
            if (e.getCause() instanceof IOException) {
                throw (IOException) e.getCause();
            }
            if (e.getCause() instanceof RuntimeException) {
                throw (RuntimeException) e.getCause();
            }
            throw new IOException("Reading " + source.id() + " failed", e.getCause());
        }
        finally {
            ioWaitNanos += System.nanoTime() - start;
        }
    }

    private Fetched fetch(int index)
            throws IOException
    {
        BlockMetaData block = blocks.get(index);
        Set<ColumnPath> wanted = requestedPaths;
        if (spans.get(index) != null && canSkipRows(encodings(block))) {
            return fetchSpan(block, spans.get(index));
        }
        // A span with a column that cannot skip rows decodes from the row group's first row (readSpanWhole): whole chunks, as unsplit.
        List<DiskRange> ranges = new ArrayList<>();
        if (pageFilter != null || spans.get(index) != null) {
            PageIndexes.ranges(block, wanted).ifPresent(ranges::add);
        }
        Map<ColumnPath, DiskRange> residentRanges = new LinkedHashMap<>();
        Set<ColumnPath> resident = residentPaths(block, index);
        for (ColumnChunkMetaData chunk : block.getColumns()) {
            if (wanted.contains(chunk.getPath())) {
                long start = chunk.getStartingPos();
                long size = chunk.getTotalSize();
                if (start < 0 || size < 0 || size > Integer.MAX_VALUE) {
                    throw new CorruptParquetException(source.id(), "column " + chunk.getPath() + " claims " + size + " bytes at offset " + start);
                }
                if (resident.contains(chunk.getPath())) {
                    residentRanges.put(chunk.getPath(), new DiskRange(start, (int) size));
                }
                else {
                    ranges.add(new DiskRange(start, (int) size));
                }
            }
        }
        Map<ColumnPath, ResidentChunk> residentRead = readResident(residentRanges);
        // Keyed by the coalesced requests, not by chunk: parquet-mr asks for runs of adjacent chunks as
        // one range, and a run inside one request is then served as a view of its buffer, not copied together.
        Map<DiskRange, DiskRange> requests = new HashMap<>();
        for (DiskRange request : source.plan(ranges)) {
            requests.put(request, request);
        }
        Fetched fetched;
        try {
            fetched = new Fetched(source.planRead(requests), residentRead);
        }
        catch (IOException | RuntimeException | Error e) {
            closeResident(residentRead);
            throw e;
        }
        if (closed) {
            // Closed while this prefetch ran: nobody will start this row group.
            closeResident(residentRead);
            return new Fetched(Map.of(), Map.of());
        }
        return fetched;
    }

    /**
     * The chunks of row group {@code index} the device decoders read where a device route leaves
     * them ({@link ColumnChunkDecoder#residentChunk}): only for device batches whose target is the
     * route's own device memory, for row groups read whole (no page filter, no span).
     */
    private Set<ColumnPath> residentPaths(BlockMetaData block, int index)
    {
        if (deviceTarget == null || pageFilter != null || spans.get(index) != null || !(source instanceof DeviceParquetDataSource device)
                || !device.readsInto(deviceTarget.runtime(), deviceTarget.device())) {
            return Set.of();
        }
        Map<ColumnPath, Set<Encoding>> encodings = encodings(block);
        Map<ColumnPath, CompressionCodecName> codecs = new HashMap<>();
        for (ColumnChunkMetaData chunk : block.getColumns()) {
            codecs.put(chunk.getPath(), chunk.getCodec());
        }
        Set<ColumnPath> paths = new HashSet<>();
        for (ColumnChunkDecoder column : shape.columns()) {
            column.residentChunk(encodings, codecs).ifPresent(paths::add);
        }
        return paths;
    }

    private Map<ColumnPath, ResidentChunk> readResident(Map<ColumnPath, DiskRange> ranges)
            throws IOException
    {
        if (ranges.isEmpty()) {
            return Map.of();
        }
        List<ColumnPath> paths = new ArrayList<>(ranges.keySet());
        List<ResidentChunk> read = ((DeviceParquetDataSource) source).readResident(new ArrayList<>(ranges.values()));
        Map<ColumnPath, ResidentChunk> resident = new LinkedHashMap<>();
        for (int i = 0; i < paths.size(); i++) {
            resident.put(paths.get(i), read.get(i));
        }
        return resident;
    }

    /**
     * The page indexes of split row group {@code block}, then only the pages of {@code span}'s rows
     * ({@link SpanPages}). Every column can skip rows.
     */
    private Fetched fetchSpan(BlockMetaData block, RowSpan span)
            throws IOException
    {
        Optional<DiskRange> indexRange = PageIndexes.ranges(block, requestedPaths);
        if (indexRange.isEmpty() && !requestedPaths.isEmpty()) {
            throw new CorruptParquetException(source.id(), "the row group at offset " + block.getStartingPos() + " was split by rows, but has no page indexes");
        }
        Map<DiskRange, ByteBuffer> buffers = new HashMap<>();
        List<DiskRange> ranges = new ArrayList<>();
        if (indexRange.isPresent()) {
            if (indexRange.get().end() > source.size()) {
                throw new CorruptParquetException(source.id(), "the page indexes of the row group at offset " + block.getStartingPos() + " end past the file's "
                        + source.size() + " bytes");
            }
            ByteBuffer indexes = source.planRead(Map.of(indexRange.get(), indexRange.get())).get(indexRange.get());
            buffers.put(indexRange.get(), indexes);
            ranges.addAll(SpanPages.ranges(block, span, SpanPages.offsetIndexes(block, requestedPaths, indexRange.get(), indexes, source.id()), source.id()));
        }
        Map<DiskRange, DiskRange> requests = new HashMap<>();
        for (DiskRange request : source.plan(ranges)) {
            requests.put(request, request);
        }
        buffers.putAll(source.planRead(requests));
        return new Fetched(buffers, Map.of());
    }

    private void readPages(int blockIndex)
            throws IOException
    {
        BlockMetaData block = blocks.get(blockIndex);
        Map<ColumnPath, Set<Encoding>> encodings = new HashMap<>();
        Map<ColumnPath, long[]> chunks = new HashMap<>();
        for (ColumnChunkMetaData chunk : block.getColumns()) {
            encodings.put(chunk.getPath(), chunk.getEncodings());
            chunks.put(chunk.getPath(), new long[] {chunk.getStartingPos(), chunk.getTotalSize(), chunk.getTotalUncompressedSize()});
        }
        rowGroupEncodings = encodings;
        RowSpan span = spans.get(blockIndex);
        RowRanges ranges;
        if (span == null) {
            ranges = pageFilter == null ? null : rowRanges(block, encodings);
        }
        else if (canSkipRows(encodings)) {
            ranges = spanRanges(block, span);
        }
        else {
            readSpanWhole(block, span, chunks, encodings);
            return;
        }
        PageReadStore pages;
        try {
            if (ranges != null && ranges.rowCount() == 0) {
                reader.skipNextRowGroup();
                rowsLeft = 0;
                return;
            }
            if (ranges == null && !residentChunks.isEmpty()) {
                pages = readWithoutResidentChunks();
            }
            else if (ranges == null) {
                pages = reader.readNextRowGroup();
            }
            else if (span == null) {
                pages = reader.readNextFilteredRowGroup();
            }
            else {
                // By index with the span's ranges (the reader's filter knows nothing of spans), then past it, as readNext* would.
                pages = reader.readFilteredRowGroup(blockIndex, ranges);
                reader.skipNextRowGroup();
            }
        }
        catch (FerryException e) {
            throw e;
        }
        catch (IOException | RuntimeException e) {
            throw new CorruptParquetException(source.id(), "cannot read row group at offset " + block.getStartingPos() + ": " + describe(e), e);
        }
        if (pages == null) {
            throw new CorruptParquetException(source.id(), "row group at offset " + block.getStartingPos() + " is missing");
        }
        long expected = ranges == null ? block.getRowCount() : ranges.rowCount();
        if (pages.getRowCount() != expected) {
            throw new CorruptParquetException(source.id(), "row group at offset " + block.getStartingPos() + " has " + pages.getRowCount()
                    + " rows, " + (ranges == null ? "its metadata says " : "its page indexes select ") + expected);
        }
        rowsLeft = pages.getRowCount();
        // Page offsets for errors come from walking a chunk's headers, which counts the pages page-index skipping left out only when all are read.
        PageChecks checks = new PageChecks(source.id(), chunks, settings.maxPageBytes(),
                ranges == null ? new PageOffsets(new SeamInputFile(source, prefetched)) : PageChecks.PageLocator.UNKNOWN);
        long[] from = null;
        long[] to = null;
        if (ranges != null) {
            List<RowRanges.Range> list = ranges.getRanges();
            from = new long[list.size()];
            to = new long[list.size()];
            for (int index = 0; index < list.size(); index++) {
                from[index] = list.get(index).from;
                to[index] = list.get(index).to;
            }
        }
        Map<ColumnPath, Long> valueCounts = new HashMap<>();
        Map<ColumnPath, CompressionCodecName> codecs = new HashMap<>();
        for (ColumnChunkMetaData chunk : block.getColumns()) {
            valueCounts.put(chunk.getPath(), chunk.getValueCount());
            codecs.put(chunk.getPath(), chunk.getCodec());
        }
        for (ColumnChunkDecoder column : shape.columns()) {
            try {
                Optional<ColumnPath> resident = residentChunks.isEmpty() ? Optional.empty() : column.residentChunk(encodings, codecs);
                if (resident.isPresent() && residentChunks.containsKey(resident.get())) {
                    column.startResident(residentChunks.get(resident.get()), codecs.get(resident.get()), valueCounts.get(resident.get()), pages, writerVersion, checks,
                            encodings, pageArrays);
                    continue;
                }
                column.start(pages, writerVersion, checks, encodings, from, to, pageArrays);
            }
            catch (FerryException e) {
                throw e;
            }
            catch (RuntimeException e) {
                throw new CorruptParquetException(source.id(), "cannot read the first page of column " + String.join(", ", column.leafPaths()) + ": " + describe(e), e);
            }
        }
        completeStarts();
    }

    /**
     * The chunks the device decoder staged at start decompress in one batch per codec for the whole
     * row group (nvCOMP's batched API over every compressed page of the row group), then each is
     * decoded or given back to the CPU.
     */
    private void completeStarts()
    {
        List<DeviceChunkDecode> staged = new ArrayList<>();
        for (ColumnChunkDecoder column : shape.columns()) {
            column.stagedChunk().ifPresent(staged::add);
        }
        if (staged.isEmpty()) {
            return;
        }
        DeviceChunkDecode.decompressTogether(staged);
        for (ColumnChunkDecoder column : shape.columns()) {
            try {
                column.completeStart();
            }
            catch (FerryException e) {
                throw e;
            }
            catch (RuntimeException e) {
                throw new CorruptParquetException(source.id(), "cannot decode the first pages of column " + String.join(", ", column.leafPaths()) + ": " + describe(e), e);
            }
        }
    }

    // The row group through parquet-mr without the chunks already in device memory: they are decoded where they lie.
    private PageReadStore readWithoutResidentChunks()
            throws IOException
    {
        List<ColumnDescriptor> others = new ArrayList<>();
        for (ColumnDescriptor column : shape.requestedSchema().getColumns()) {
            if (!residentChunks.containsKey(ColumnPath.get(column.getPath()))) {
                others.add(column);
            }
        }
        reader.setRequestedSchema(others);
        try {
            return reader.readNextRowGroup();
        }
        finally {
            reader.setRequestedSchema(shape.requestedSchema());
        }
    }

    /**
     * The rows of split row group {@code block} this slice reads: {@code span} moved to the anchor
     * column's page starts ({@link RowSpanRanges}), and with a page filter only the rows it may
     * match; null when that is every row (read whole, no skipping). Every column must skip rows
     * ({@link #readSpanWhole} otherwise).
     */
    private RowRanges spanRanges(BlockMetaData block, RowSpan span)
    {
        PageIndexes indexes = new PageIndexes(reader, block, source.id());
        Optional<RowSpan> aligned = RowSpanRanges.aligned(span, block.getRowCount(), anchorIndex(block, indexes));
        if (aligned.isEmpty()) {
            return RowRanges.EMPTY;
        }
        RowRanges ranges = RowSpanRanges.of(aligned.get(), block.getRowCount());
        if (pageFilter != null) {
            RowRanges filtered;
            try {
                filtered = RowRanges.intersection(ColumnIndexFilter.calculateRowRanges(pageFilter, indexes, requestedPaths, block.getRowCount()), ranges);
            }
            catch (FerryException e) {
                throw e;
            }
            catch (RuntimeException e) {
                throw new CorruptParquetException(source.id(), "cannot use the page indexes of the row group at offset " + block.getStartingPos() + ": "
                        + describe(e), e);
            }
            pagesSkipped += indexes.pagesOutside(filtered, requestedPaths) - indexes.pagesOutside(ranges, requestedPaths);
            ranges = filtered;
        }
        return ranges.rowCount() == block.getRowCount() ? null : ranges;
    }

    private static Map<ColumnPath, Set<Encoding>> encodings(BlockMetaData block)
    {
        Map<ColumnPath, Set<Encoding>> encodings = new HashMap<>();
        for (ColumnChunkMetaData chunk : block.getColumns()) {
            encodings.put(chunk.getPath(), chunk.getEncodings());
        }
        return encodings;
    }

    // Called on the prefetch thread too: the decoders' answer depends only on their layout, fixed at construction, and the chunk's encodings.
    private boolean canSkipRows(Map<ColumnPath, Set<Encoding>> encodings)
    {
        for (ColumnChunkDecoder column : shape.columns()) {
            if (!column.canSkipRows(encodings)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The offset index of the requested column with the most bytes in {@code block}, whose page
     * starts the span's ends move to; empty when no requested column is in the file (no pages to align to).
     */
    private Optional<OffsetIndex> anchorIndex(BlockMetaData block, PageIndexes indexes)
    {
        // The same choice in every task of the row group and in SpanPages, which fetched the pages.
        Optional<ColumnChunkMetaData> chosen = RowSpanRanges.anchor(block, requestedPaths);
        if (chosen.isEmpty()) {
            return Optional.empty();
        }
        ColumnChunkMetaData anchor = chosen.get();
        try {
            return Optional.of(indexes.getOffsetIndex(anchor.getPath()));
        }
        catch (ColumnIndexStore.MissingOffsetIndexException e) {
            throw new CorruptParquetException(source.id(), "the row group at offset " + block.getStartingPos() + " was split by rows, but column "
                    + anchor.getPath().toDotString() + " has no offset index", e);
        }
    }

    /**
     * A split row group with a column that cannot skip rows (nested, or an encoding the flat
     * decoders lack): the row group is read from its first row, the rows before the span decoded and
     * dropped ({@link #dropLeadingRows}), reading stopped at the span's end. The same cuts as
     * {@link #spanRanges} would use, so the other tasks of the row group read the rest exactly. Counted and logged.
     */
    private void readSpanWhole(BlockMetaData block, RowSpan span, Map<ColumnPath, long[]> chunks, Map<ColumnPath, Set<Encoding>> encodings)
            throws IOException
    {
        Optional<RowSpan> aligned = RowSpanRanges.aligned(span, block.getRowCount(), anchorIndex(block, new PageIndexes(reader, block, source.id())));
        if (aligned.isEmpty()) {
            reader.skipNextRowGroup();
            rowsLeft = 0;
            return;
        }
        if (spansReadWhole++ == 0) {
            log.info("{}: the row group at offset {} is split by rows, but a column cannot skip rows: this task decodes its rows [0, {}) and keeps {}",
                    source.id(), block.getStartingPos(), aligned.get().to(), aligned.get());
        }
        PageReadStore pages;
        try {
            pages = reader.readNextRowGroup();
        }
        catch (FerryException e) {
            throw e;
        }
        catch (IOException | RuntimeException e) {
            throw new CorruptParquetException(source.id(), "cannot read row group at offset " + block.getStartingPos() + ": " + describe(e), e);
        }
        if (pages == null || pages.getRowCount() != block.getRowCount()) {
            throw new CorruptParquetException(source.id(), "row group at offset " + block.getStartingPos() + " has "
                    + (pages == null ? "no pages" : pages.getRowCount() + " rows") + ", its metadata says " + block.getRowCount());
        }
        rowsLeft = aligned.get().to();
        rowsToDrop = aligned.get().from();
        readsToLastRow = aligned.get().to() == block.getRowCount();
        PageChecks checks = new PageChecks(source.id(), chunks, settings.maxPageBytes(), new PageOffsets(new SeamInputFile(source, prefetched)));
        for (ColumnChunkDecoder column : shape.columns()) {
            try {
                column.start(pages, writerVersion, checks, encodings, null, null, pageArrays);
            }
            catch (FerryException e) {
                throw e;
            }
            catch (RuntimeException e) {
                throw new CorruptParquetException(source.id(), "cannot read the first page of column " + String.join(", ", column.leafPaths()) + ": " + describe(e), e);
            }
        }
        completeStarts();
    }

    /**
     * The rows of {@code block} the page filter may match, from the column indexes, or null to read
     * the whole row group: the file has no page indexes, they select every row, or a column cannot
     * skip rows (logged and counted). Counts the pages of the requested columns the ranges skip.
     */
    private RowRanges rowRanges(BlockMetaData block, Map<ColumnPath, Set<Encoding>> encodings)
    {
        for (ColumnChunkDecoder column : shape.columns()) {
            if (!column.canSkipRows(encodings)) {
                pageIndexFallbacks++;
                log.debug("{}: reading the row group at offset {} whole: column {} cannot skip rows by page index", source.id(), block.getStartingPos(),
                        column.field().name());
                return null;
            }
        }
        PageIndexes indexes = new PageIndexes(reader, block, source.id());
        RowRanges ranges;
        try {
            ranges = ColumnIndexFilter.calculateRowRanges(pageFilter, indexes, requestedPaths, block.getRowCount());
        }
        catch (FerryException e) {
            throw e;
        }
        catch (RuntimeException e) {
            throw new CorruptParquetException(source.id(), "cannot use the page indexes of the row group at offset " + block.getStartingPos() + ": " + describe(e), e);
        }
        if (ranges.rowCount() == block.getRowCount()) {
            return null;
        }
        pagesSkipped += indexes.pagesOutside(ranges, requestedPaths);
        return ranges;
    }

    private void checkReadable(MessageType requested, ParquetReadOptions options)
    {
        Set<ColumnPath> wanted = new HashSet<>();
        for (ColumnDescriptor column : requested.getColumns()) {
            wanted.add(ColumnPath.get(column.getPath()));
        }
        for (BlockMetaData block : blocks) {
            for (ColumnChunkMetaData chunk : block.getColumns()) {
                if (!wanted.contains(chunk.getPath())) {
                    continue;
                }
                if (chunk.isEncrypted()) {
                    throw new UnsupportedParquetException(source.id(), chunk.getPath().toDotString(), "the column is encrypted and no decryption keys are configured");
                }
                checkCodec(chunk.getCodec(), chunk.getPath().toDotString(), options);
            }
        }
    }

    private void checkCodec(CompressionCodecName codec, String column, ParquetReadOptions options)
    {
        if (!checkedCodecs.add(codec)) {
            return;
        }
        try {
            options.getCodecFactory().getDecompressor(codec);
        }
        catch (RuntimeException | LinkageError e) {
            throw new UnsupportedParquetException(source.id(), column, "compression codec " + codec + " is not available on this classpath (" + describe(e) + ")");
        }
    }

    private static VersionParser.ParsedVersion parseWriterVersion(String createdBy)
    {
        if (createdBy == null) {
            return null;
        }
        try {
            return VersionParser.parse(createdBy);
        }
        catch (VersionParser.VersionParseException | RuntimeException e) {
            // Same as parquet-mr's ColumnReadStoreImpl: an unparsable writer means no writer-specific workarounds.
            return null;
        }
    }

    private static String describe(Throwable error)
    {
        String message = error.getMessage();
        return error.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

    @Override
    public void close()
            throws IOException
    {
        closed = true;
        if (ahead != null && deviceTarget == null) {
            ahead.cancel(true);
            ahead = null;
        }
        if (ahead != null) {
            // Not interrupted: a prefetch that already read chunks into device memory must finish to free them (it sees closed).
            if (!ahead.cancel(false)) {
                try {
                    closeResident(ahead.get().resident());
                }
                catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                catch (ExecutionException e) {
                    // The prefetch failed and freed what it read; the failure belongs to a row group nobody reads.
                }
            }
            ahead = null;
        }
        closeResident(residentChunks);
        residentChunks = Map.of();
        prefetched.clear();
        // A reader closed mid-row-group (a LIMIT) frees what the device decoder holds for the chunk.
        shape.columns().forEach(ColumnChunkDecoder::release);
        reader.close();
    }

    // The fetched host buffers, keyed by the file range each holds, and the chunks left in device memory, by column.
    private record Fetched(Map<DiskRange, ByteBuffer> buffers, Map<ColumnPath, ResidentChunk> resident) {}
}
