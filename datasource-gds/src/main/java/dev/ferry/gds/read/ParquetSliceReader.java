package dev.ferry.gds.read;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.gds.decode.ColumnChunkDecoder;
import dev.ferry.gds.decode.DatetimeRules;
import dev.ferry.gds.decode.FileShape;
import dev.ferry.gds.decode.ShapeBuilder;
import dev.ferry.gds.decode.UnsupportedParquetException;
import dev.ferry.gds.io.AbstractParquetDataSource;
import dev.ferry.gds.io.CorruptParquetException;
import dev.ferry.gds.io.DiskRange;
import dev.ferry.gds.io.PrefetchedRanges;
import dev.ferry.gds.io.SeamInputFile;
import dev.ferry.gds.plan.CalendarRebase;
import dev.ferry.gds.plan.FileSlice;
import dev.ferry.gds.plan.FooterReader;
import dev.ferry.gds.plan.GdsReadSettings;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.VersionParser;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.FileMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;
import org.apache.spark.sql.types.StructType;

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

import static java.util.Objects.requireNonNull;

/**
 * Reads the row groups of one {@link FileSlice} through a data source: footer from one tail read,
 * each row group's column chunks fetched in one planned (coalesced, parallel) read, then pages
 * decoded column by column into Arrow. parquet-mr parses page headers and decompresses; every byte
 * it asks for comes from the planned ranges.
 */
public final class ParquetSliceReader
        implements Closeable
{
    private static final String SPARK_TIME_ZONE_KEY = "org.apache.spark.timeZone";

    private final AbstractParquetDataSource source;
    private final GdsReadSettings settings;
    private final BufferAllocator allocator;
    private final PrefetchedRanges prefetched = new PrefetchedRanges();
    private final List<BlockMetaData> blocks;
    private final FileShape shape;
    private final ParquetFileReader reader;
    private final VersionParser.ParsedVersion writerVersion;
    private final Set<CompressionCodecName> checkedCodecs = new HashSet<>();
    private final Optional<ExecutorService> prefetcher;
    private Future<Fetched> ahead;
    private int nextBlock;
    private long rowsLeft;
    private long decodeNanos;
    private long ioWaitNanos;

    public ParquetSliceReader(FileSlice slice, AbstractParquetDataSource source, GdsReadSettings settings, ParquetReadOptions options,
            StructType dataReadSchema, BufferAllocator allocator, Optional<ExecutorService> prefetcher)
            throws IOException
    {
        requireNonNull(slice, "slice is null");
        this.prefetcher = requireNonNull(prefetcher, "prefetcher is null");
        this.source = requireNonNull(source, "source is null");
        this.settings = requireNonNull(settings, "settings is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
        if (source.size() != slice.file().length()) {
            throw new FerryException(ErrorCategory.USER_ERROR, source.id() + " changed since the scan was planned: " + source.size()
                    + " bytes now, " + slice.file().length() + " when listed");
        }
        ParquetMetadata footer = FooterReader.read(source, options, settings.footerTail(), prefetched);
        FileMetaData metadata = footer.getFileMetaData();
        this.blocks = new ArrayList<>();
        for (int index : slice.rowGroups()) {
            if (index >= footer.getBlocks().size()) {
                throw new FerryException(ErrorCategory.USER_ERROR, source.id() + " changed since the scan was planned: row group " + index + " is gone");
            }
            blocks.add(footer.getBlocks().get(index));
        }
        String rebaseZone = Optional.ofNullable(metadata.getKeyValueMetaData().get(SPARK_TIME_ZONE_KEY)).orElse(settings.sessionTimeZone());
        DatetimeRules rules = new DatetimeRules(CalendarRebase.forDatetime(metadata, settings.datetimeRebaseMode()),
                CalendarRebase.forInt96(metadata, settings.int96RebaseMode()), rebaseZone,
                settings.int96TimestampConversion() && (metadata.getCreatedBy() == null || !metadata.getCreatedBy().startsWith("parquet-mr")));
        this.shape = new ShapeBuilder(source.id(), settings.caseSensitive(), rules).build(dataReadSchema, metadata.getSchema());
        checkReadable(shape.requestedSchema(), options);
        this.writerVersion = parseWriterVersion(metadata.getCreatedBy());
        SeamInputFile file = new SeamInputFile(source, prefetched);
        ParquetFileReader opened;
        try {
            opened = ParquetFileReader.open(file, new ParquetMetadata(metadata, blocks), options, file.newStream());
        }
        catch (RuntimeException e) {
            throw new CorruptParquetException(source.id(), "cannot open: " + e.getMessage(), e);
        }
        this.reader = opened;
        reader.setRequestedSchema(shape.requestedSchema());
        prefetched.clear();
    }

    /** The next batch of at most {@code maxRows} rows, or empty at the end of the slice. */
    public Optional<DecodedBatch> next(int maxRows)
            throws IOException
    {
        while (rowsLeft == 0) {
            if (nextBlock == blocks.size()) {
                return Optional.empty();
            }
            startRowGroup(nextBlock++);
        }
        int rows = (int) Math.min(maxRows, rowsLeft);
        long start = System.nanoTime();
        List<FieldVector> vectors = new ArrayList<>();
        try {
            for (ColumnChunkDecoder column : shape.columns()) {
                vectors.add(decode(column, rows));
            }
        }
        catch (RuntimeException e) {
            vectors.forEach(FieldVector::close);
            throw e;
        }
        rowsLeft -= rows;
        decodeNanos += System.nanoTime() - start;
        return Optional.of(new DecodedBatch(vectors, rows));
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
        catch (RuntimeException e) {
            throw new CorruptParquetException(source.id(), "cannot decode column " + String.join(", ", column.leafPaths()) + ": " + describe(e), e);
        }
    }

    private void startRowGroup(int index)
            throws IOException
    {
        BlockMetaData block = blocks.get(index);
        prefetched.clear();
        Fetched fetched = take(block);
        if (prefetcher.isPresent() && index + 1 < blocks.size()) {
            // Read the next row group's chunks while this one decodes.
            BlockMetaData next = blocks.get(index + 1);
            ahead = prefetcher.get().submit(() -> fetch(next));
        }
        for (Map.Entry<ColumnPath, DiskRange> range : fetched.ranges().entrySet()) {
            prefetched.add(range.getValue(), fetched.buffers().get(range.getKey()));
        }
        readPages(block);
    }

    private Fetched take(BlockMetaData block)
            throws IOException
    {
        long start = System.nanoTime();
        try {
            if (ahead == null) {
                return fetch(block);
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

    private Fetched fetch(BlockMetaData block)
            throws IOException
    {
        Set<ColumnPath> wanted = new HashSet<>();
        for (ColumnDescriptor column : shape.requestedSchema().getColumns()) {
            wanted.add(ColumnPath.get(column.getPath()));
        }
        Map<ColumnPath, DiskRange> ranges = new HashMap<>();
        for (ColumnChunkMetaData chunk : block.getColumns()) {
            if (wanted.contains(chunk.getPath())) {
                long start = chunk.getStartingPos();
                long size = chunk.getTotalSize();
                if (start < 0 || size < 0 || size > Integer.MAX_VALUE) {
                    throw new CorruptParquetException(source.id(), "column " + chunk.getPath() + " claims " + size + " bytes at offset " + start);
                }
                ranges.put(chunk.getPath(), new DiskRange(start, (int) size));
            }
        }
        return new Fetched(ranges, source.planRead(ranges));
    }

    private void readPages(BlockMetaData block)
            throws IOException
    {
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
        if (pages == null) {
            throw new CorruptParquetException(source.id(), "row group at offset " + block.getStartingPos() + " is missing");
        }
        if (pages.getRowCount() != block.getRowCount()) {
            throw new CorruptParquetException(source.id(), "row group at offset " + block.getStartingPos() + " has " + pages.getRowCount()
                    + " rows, its metadata says " + block.getRowCount());
        }
        rowsLeft = pages.getRowCount();
        Map<ColumnPath, Set<Encoding>> encodings = new HashMap<>();
        for (ColumnChunkMetaData chunk : block.getColumns()) {
            encodings.put(chunk.getPath(), chunk.getEncodings());
        }
        for (ColumnChunkDecoder column : shape.columns()) {
            try {
                column.start(pages, writerVersion, source.id(), encodings);
            }
            catch (FerryException e) {
                throw e;
            }
            catch (RuntimeException e) {
                throw new CorruptParquetException(source.id(), "cannot read the first page of column " + String.join(", ", column.leafPaths()) + ": " + describe(e), e);
            }
        }
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
        if (ahead != null) {
            ahead.cancel(true);
            ahead = null;
        }
        prefetched.clear();
        reader.close();
    }

    private record Fetched(Map<ColumnPath, DiskRange> ranges, Map<ColumnPath, ByteBuffer> buffers) {}
}
