package dev.ferry.gds.decode;

import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.gds.decode.cuda.ChunkPages;
import dev.ferry.gds.decode.cuda.DeviceBufferKernels;
import dev.ferry.gds.decode.cuda.DeviceChunkDecode;
import dev.ferry.gds.decode.cuda.DeviceChunkRefusedException;
import dev.ferry.gds.decode.cuda.DeviceValueKind;
import dev.ferry.gds.device.DeviceColumn;
import dev.ferry.gds.device.DeviceTarget;
import dev.ferry.gds.io.CompressedPageCapture;
import dev.ferry.gds.io.PageArrays;
import dev.ferry.gds.io.ResidentChunk;
import dev.ferry.gds.decode.cuda.DevicePageHeaders;
import dev.ferry.gds.parquet.CorruptParquetException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.parquet.VersionParser;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.spark.sql.types.StructField;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;

import static java.util.Objects.requireNonNull;

/**
 * The device implementation of the decode seam (the {@code cuda} backend's decoder): a flat column
 * chunk the shared rule ({@link DeviceDecodeSupport}) and the kernels take is uploaded once and
 * decoded by kernels into device Arrow buffers ({@link DeviceChunkDecode}); every other chunk goes
 * to the wrapped {@link CpuColumnChunkDecoder}, per chunk, with the reason {@link #deviceSupport}
 * gives (the caller counts it and decodes on the CPU and uploads).
 *
 * <p>Compressed pages stay compressed: with the reader's codec seam ({@link CompressedPageCapture},
 * from {@code BoundedCodecFactory}) this decoder reads its chunk's pages with a capture window open,
 * so parquet-mr's page reader hands it deferred bodies, and the upload carries each body as stored;
 * the chunk is staged at start and one batched call per codec for the row group (nvCOMP on a GPU)
 * decompresses every staged chunk's bodies in device memory ({@link #completeStart}), and the page
 * framing is read back from there. The host-side page checks ({@link CheckedPageReader}) would read,
 * and so decompress, every body: on this path only value counts are checked on the host, the bytes by
 * the kernels' error flags. A codec the device cannot decompress, a page it fails on and a chunk it
 * refuses after reading it (BIT_PACKED levels, PLAIN and dictionary pages mixed) are replayed to the
 * CPU decoder from copies ({@link ReplayedPages}), each deferred body decompressed once as it is
 * copied; a body that does not decompress there either is a {@link CorruptParquetException} naming
 * the file and column. What device-decoded chunks uploaded is tallied in {@link DevicePageCounts}.
 * Never yet run on a GPU with nvCOMP in front (the kernels ran once on an H200 with pages
 * decompressed on the CPU).
 */
final class CudaColumnChunkDecoder
        implements ColumnChunkDecoder
{
    private static final Logger LOG = LoggerFactory.getLogger(CudaColumnChunkDecoder.class);
    /** Reasons already logged in this JVM for chunks decompressed on the CPU and decoded on the device (each is also counted per reader). */
    private static final Set<String> HOST_DECOMPRESSION_LOGGED = ConcurrentHashMap.newKeySet();
    /** Reasons already logged in this JVM for resident chunks given back to the CPU decoder (each is also counted per reader). */
    private static final Set<String> RESIDENT_GIVEN_BACK_LOGGED = ConcurrentHashMap.newKeySet();

    private final CpuColumnChunkDecoder cpu;
    private final DeviceBufferKernels kernels;
    private final String unavailable;
    private final String file;
    private final Optional<DeviceValueKind> kind;
    private final String kindRefusal;
    private final Optional<CompressedPageCapture> capture;
    private final DevicePageCounts counts;
    // The CPU codecs of chunks given back to the CPU decoder, made on the first and released with this decoder.
    private final HostCodecs givenBackCodecs = new HostCodecs();
    private DeviceChunkDecode chunk;
    private int cursor;
    private String chunkRefusal;
    private PendingStart pendingStart;

    /**
     * {@code kernels} null: the device decoder cannot run here, and {@code unavailable} says why.
     * {@code capture}: the reader's codec seam, which keeps the pages of a chunk this decoder reads
     * compressed (empty: parquet-mr's codecs decompress them on the CPU first); {@code counts} the
     * reader's tally of what device-decoded chunks uploaded.
     */
    CudaColumnChunkDecoder(CpuColumnChunkDecoder cpu, DeviceBufferKernels kernels, String unavailable, String file, Optional<CompressedPageCapture> capture,
            DevicePageCounts counts)
    {
        this.capture = requireNonNull(capture, "capture is null");
        this.counts = requireNonNull(counts, "counts is null");
        this.cpu = requireNonNull(cpu, "cpu is null");
        this.kernels = kernels;
        this.unavailable = kernels == null ? requireNonNull(unavailable, "unavailable is null") : "";
        this.file = requireNonNull(file, "file is null");
        KindChoice choice = kindOf(cpu);
        Optional<DeviceValueKind> chosen = choice.kind();
        String refusal = choice.refusal();
        this.kind = chosen;
        this.kindRefusal = refusal;
    }

    /** The kernels' value kind for a flat column, or (empty) why the kernels do not decode it. */
    record KindChoice(Optional<DeviceValueKind> kind, String refusal) {}

    /** The kernels' value kind for {@code cpu}'s column (one flat leaf), or why they do not decode it; empty kind and refusal for other shapes. */
    static KindChoice kindOf(CpuColumnChunkDecoder cpu)
    {
        Optional<DeviceValueKind> chosen = Optional.empty();
        String refusal = "";
        if (cpu.leaves().size() == 1 && cpu.flatLayout().isEmpty()) {
            chosen = DeviceDecodeSupport.deviceConversion(cpu.leaves().get(0));
        }
        else if (cpu.leaves().size() == 1 && cpu.flatLayout().isPresent()) {
            PrimitiveTypeName physical = cpu.leaves().get(0).descriptor.getPrimitiveType().getPrimitiveTypeName();
            switch (cpu.flatLayout().get()) {
                case FIXED4 -> chosen = Optional.of(DeviceValueKind.FIXED4);
                case FIXED8 -> chosen = Optional.of(DeviceValueKind.FIXED8);
                case INT96 -> chosen = Optional.of(DeviceValueKind.INT96_MICROS);
                case VARBYTES -> chosen = Optional.of(DeviceValueKind.STRINGS);
                case DECIMAL -> {
                    if (physical == PrimitiveTypeName.INT32) {
                        chosen = Optional.of(DeviceValueKind.DECIMAL_INT32);
                    }
                    else if (physical == PrimitiveTypeName.INT64) {
                        chosen = Optional.of(DeviceValueKind.DECIMAL_INT64);
                    }
                    else {
                        refusal = "decimal stored as " + physical + " is not decoded by the device kernels yet";
                    }
                }
                case BOOL -> chosen = Optional.of(DeviceValueKind.BOOLEANS);
            }
        }
        return new KindChoice(chosen, refusal);
    }

    @Override
    public StructField field()
    {
        return cpu.field();
    }

    @Override
    public DecodeSupport deviceSupport(Map<ColumnPath, Set<Encoding>> encodings)
    {
        DecodeSupport shared = cpu.deviceSupport(encodings);
        if (!shared.supported() || cpu.leaves().isEmpty()) {
            return shared;
        }
        if (kernels == null) {
            return DecodeSupport.refused(unavailable);
        }
        if (kind.isEmpty()) {
            return DecodeSupport.refused(kindRefusal);
        }
        if (chunkRefusal != null) {
            return DecodeSupport.refused(chunkRefusal);
        }
        return DecodeSupport.decodes();
    }

    @Override
    public boolean canSkipRows(Map<ColumnPath, Set<Encoding>> encodings)
    {
        return cpu.canSkipRows(encodings);
    }

    @Override
    public void start(PageReadStore pages, VersionParser.ParsedVersion writerVersion, PageChecks checks, Map<ColumnPath, Set<Encoding>> encodings,
            long[] rangeFrom, long[] rangeTo, PageArrays pageArrays)
    {
        closeChunk();
        chunkRefusal = null;
        cursor = 0;
        if (kernels == null || kind.isEmpty() || cpu.leaves().isEmpty() || !cpu.deviceSupport(encodings).supported()) {
            cpu.start(pages, writerVersion, checks, encodings, rangeFrom, rangeTo, pageArrays);
            return;
        }
        if (rangeFrom != null) {
            chunkRefusal = "row ranges (page-index skipping) are not decoded by the device kernels yet";
            cpu.start(pages, writerVersion, checks, encodings, rangeFrom, rangeTo, pageArrays);
            return;
        }
        LeafNode leaf = cpu.leaves().get(0);
        ColumnDescriptor descriptor = leaf.descriptor;
        PageReader raw = pages.getPageReader(descriptor);
        if (raw == null) {
            throw new CorruptParquetException(file, "row group has no pages for column " + leaf.path);
        }
        ReadChunk read = capture.isPresent() ? readDeferred(raw, checks, leaf) : readDecompressed(checks.wrap(descriptor, raw));
        ChunkPages layout = ChunkPages.of(read.dictionary(), read.pages(), descriptor.getMaxDefinitionLevel(), read.compressedOf());
        Optional<String> refusal = layout.refusal();
        if (refusal.isEmpty() && layout.codec().isPresent()) {
            CompressionCodecName codec = layout.codec().get();
            Optional<String> noDeviceCodec = kernels.cannotDecompress(codec);
            if (noDeviceCodec.isPresent()) {
                // The device cannot decompress these bodies (no nvCOMP here, or a codec nvCOMP lacks), but its kernels
                // still decode the chunk: the bodies decompress on the CPU, once each, and cross PCIe decompressed.
                read = decompressedOnHost(read, leaf);
                layout = ChunkPages.of(read.dictionary(), read.pages(), descriptor.getMaxDefinitionLevel(), read.compressedOf());
                refusal = layout.refusal();
                counts.decompressedOnHost(noDeviceCodec.get());
                if (HOST_DECOMPRESSION_LOGGED.add(noDeviceCodec.get())) {
                    LOG.info("Device decoder: {} chunks are decompressed on the CPU and decoded on the device ({}); first in {} column {}", codec, noDeviceCodec.get(), file, leaf.path);
                }
            }
        }
        if (refusal.isEmpty()) {
            refusal = beyondFooter(layout, checks, descriptor);
        }
        if (refusal.isEmpty() && layout.rowCount() != pages.getRowCount()) {
            throw new CorruptParquetException(file, "column " + leaf.path + " has " + layout.rowCount() + " values in a row group of " + pages.getRowCount() + " rows");
        }
        if (refusal.isEmpty()) {
            try {
                DeviceChunkDecode staged = DeviceChunkDecode.staged(kernels, new DeviceChunkDecode.ChunkName(file, leaf.path), kind.get(),
                        descriptor.getPrimitiveType().getTypeLength(), descriptor.getMaxDefinitionLevel(), layout, 0);
                ChunkPages placed = layout;
                ReadChunk kept = read;
                pendingStart = new PendingStart(staged,
                        done -> counts.add(placed.storedBodyBytes(), placed.decodedBodyBytes(), done.framingBytes(), placed.codec().isPresent()),
                        reason -> replayOnCpu(reason, kept, leaf, raw.getTotalValueCount(), pages, writerVersion, checks, encodings, pageArrays), () -> {});
                return;
            }
            catch (DeviceChunkRefusedException e) {
                refusal = Optional.of(e.getMessage());
            }
        }
        replayOnCpu(refusal.get(), read, leaf, raw.getTotalValueCount(), pages, writerVersion, checks, encodings, pageArrays);
    }

    // Back to the CPU with the reason: deferred bodies decompress on the CPU now, once each, as the copies are made.
    private void replayOnCpu(String reason, ReadChunk read, LeafNode leaf, long totalValueCount, PageReadStore pages, VersionParser.ParsedVersion writerVersion,
            PageChecks checks, Map<ColumnPath, Set<Encoding>> encodings, PageArrays pageArrays)
    {
        ColumnDescriptor descriptor = leaf.descriptor;
        chunkRefusal = reason;
        DictionaryPage dictionary = null;
        List<DataPage> copies = new ArrayList<>();
        String copying = "the dictionary page";
        try {
            dictionary = ReplayedPages.copy(read.dictionary());
            for (DataPage page : read.pages()) {
                copying = "data page " + copies.size();
                copies.add(ReplayedPages.copy(page));
            }
        }
        catch (UncheckedIOException e) {
            throw new CorruptParquetException(file, "column " + leaf.path + ": " + copying + " does not decompress on the CPU either (the device decoder gave the chunk back: "
                    + chunkRefusal + "): " + e.getCause().getMessage());
        }
        cpu.start(ReplayedPages.of(pages, descriptor, dictionary, copies, totalValueCount), writerVersion, checks, encodings, null, null, pageArrays);
    }

    // Device memory is sized from the page headers; never past what the footer says the whole chunk decodes to (the CPU decoder,
    // which sizes page by page, takes a chunk that claims more).
    private static Optional<String> beyondFooter(ChunkPages layout, PageChecks checks, ColumnDescriptor descriptor)
    {
        long footer = checks.footerUncompressedBytes(descriptor);
        if (footer >= 0 && layout.decodedBodyBytes() > footer) {
            return Optional.of("pages that decode to more bytes than the footer gives the chunk");
        }
        return Optional.empty();
    }

    @Override
    public Optional<ColumnPath> residentChunk(Map<ColumnPath, Set<Encoding>> encodings, Map<ColumnPath, CompressionCodecName> codecs)
    {
        return kernels == null ? Optional.empty() : residentPath(cpu, encodings, codecs, kernels::cannotDecompress);
    }

    /**
     * The chunk path the device decoder reads in place for {@code cpu}'s column (one flat leaf of a
     * kind the kernels decode, encodings the shared rule takes), when its codec is one the device
     * decompresses ({@code cannotDecompress} empty): a chunk the CPU would decompress comes through parquet-mr.
     * The one rule for the cuda decoder and the simulated backend's, so both take the same chunks.
     */
    static Optional<ColumnPath> residentPath(CpuColumnChunkDecoder cpu, Map<ColumnPath, Set<Encoding>> encodings, Map<ColumnPath, CompressionCodecName> codecs,
            Function<CompressionCodecName, Optional<String>> cannotDecompress)
    {
        if (cpu.leaves().size() != 1 || !cpu.deviceSupport(encodings).supported() || kindOf(cpu).kind().isEmpty()) {
            return Optional.empty();
        }
        ColumnPath path = ColumnPath.get(cpu.leaves().get(0).descriptor.getPath());
        CompressionCodecName codec = codecs.get(path);
        if (codec == null || (codec != CompressionCodecName.UNCOMPRESSED && cannotDecompress.apply(codec).isPresent())) {
            return Optional.empty();
        }
        return Optional.of(path);
    }

    /**
     * The chunk decoded where the GDS read left it: its page headers walked on the device
     * ({@link DevicePageHeaders}, descriptors read back as framing), its compressed bodies
     * decompressed on the device (where they lie when nvCOMP's alignment allows, so the read's memory
     * stays borrowed until the row group's batch ran; else from a staging copy), decoded by the
     * kernels, with no byte of it uploaded or copied back. Pages the kernels do not decode give the chunk back to the CPU with the reason: its bytes
     * come down once (counted as row data crossing back) and are replayed from the walked headers.
     */
    @Override
    public void startResident(ResidentChunk resident, CompressionCodecName codec, long valueCount, PageReadStore rowGroup, VersionParser.ParsedVersion writerVersion, PageChecks checks,
            Map<ColumnPath, Set<Encoding>> encodings, PageArrays pageArrays)
    {
        closeChunk();
        chunkRefusal = null;
        cursor = 0;
        LeafNode leaf = cpu.leaves().get(0);
        ColumnDescriptor descriptor = leaf.descriptor;
        long length = resident.range().length();
        long address = kernels.borrow(resident.buffer(), resident.offset(), length);
        DevicePageHeaders.Walked walked;
        ChunkPages layout;
        Optional<String> refusal;
        boolean stillRead = false;
        try {
            walked = DevicePageHeaders.walk(kernels, file, List.of(new DevicePageHeaders.Chunk(leaf.path, resident.range().position(), address, length, valueCount)),
                    checks.maxPageBytes()).get(0);
            layout = ChunkPages.resident(walked.pages(), codec, descriptor.getMaxDefinitionLevel());
            refusal = layout.refusal();
            if (refusal.isEmpty()) {
                refusal = beyondFooter(layout, checks, descriptor);
            }
            if (refusal.isEmpty() && layout.rowCount() != rowGroup.getRowCount()) {
                throw new CorruptParquetException(file, "column " + leaf.path + " has " + layout.rowCount() + " values in a row group of " + rowGroup.getRowCount() + " rows");
            }
            if (refusal.isEmpty()) {
                try {
                    DeviceChunkDecode staged = DeviceChunkDecode.staged(kernels, new DeviceChunkDecode.ChunkName(file, leaf.path), kind.get(),
                            descriptor.getPrimitiveType().getTypeLength(), descriptor.getMaxDefinitionLevel(), layout, address);
                    ChunkPages placed = layout;
                    DevicePageHeaders.Walked headers = walked;
                    pendingStart = new PendingStart(staged,
                            done -> counts.addResident(placed.decodedBodyBytes(), headers.framingBytes() + done.framingBytes(), placed.codec().isPresent(),
                                    done.bodiesDecompressedInPlace(), done.bodiesStaged(), done.stagedBytes()),
                            reason -> giveBackToCpu(reason, resident, codec, valueCount, headers, rowGroup, writerVersion, checks, encodings, pageArrays),
                            () -> kernels.giveBack(address));
                    stillRead = true;
                    return;
                }
                catch (DeviceChunkRefusedException e) {
                    refusal = Optional.of(e.getMessage());
                }
            }
        }
        finally {
            // A staged chunk's aligned compressed bodies are decompressed where the read put them: its pending start gives
            // the memory back once the row group's batch ran. Otherwise the kernels no longer read it.
            if (!stillRead) {
                kernels.giveBack(address);
            }
        }
        giveBackToCpu(refusal.get(), resident, codec, valueCount, walked, rowGroup, writerVersion, checks, encodings, pageArrays);
    }

    // A resident chunk's bytes copied down once (counted) and replayed to the CPU decoder from its walked headers.
    private void giveBackToCpu(String reason, ResidentChunk resident, CompressionCodecName codec, long valueCount, DevicePageHeaders.Walked walked,
            PageReadStore rowGroup, VersionParser.ParsedVersion writerVersion, PageChecks checks, Map<ColumnPath, Set<Encoding>> encodings, PageArrays pageArrays)
    {
        LeafNode leaf = cpu.leaves().get(0);
        ColumnDescriptor descriptor = leaf.descriptor;
        chunkRefusal = reason;
        counts.residentGivenBack(chunkRefusal);
        if (RESIDENT_GIVEN_BACK_LOGGED.add(chunkRefusal)) {
            LOG.info("Device decoder: a chunk read into device memory goes back to the CPU decoder, its bytes copied down once ({}); first in {} column {}", chunkRefusal,
                    file, leaf.path);
        }
        // Bodies decompress on parquet-mr's CPU codecs as the CPU decoder reaches each page; the codecs go with this decoder.
        ReplayedPages replayed = WalkedPagesOnHost.of(rowGroup, descriptor, resident.copyToHost(), walked.pages(), codec, valueCount, givenBackCodecs.get(), file,
                leaf.path);
        cpu.start(replayed, writerVersion, checks, encodings, null, null, pageArrays);
    }

    /**
     * A chunk staged at start whose bodies wait for the row group's batched decompression; what to count once decoded,
     * how to give it back, and how to end the borrow of the memory it was read to (which its batch reads).
     */
    private record PendingStart(DeviceChunkDecode chunk, Consumer<DeviceChunkDecode> decoded, Consumer<String> givenBack, Runnable readDone) {}

    @Override
    public Optional<DeviceChunkDecode> stagedChunk()
    {
        return pendingStart == null ? Optional.empty() : Optional.of(pendingStart.chunk());
    }

    /** The staged chunk decoded after its batch ran, or given back to the CPU with the reason its pages did not decompress or frame. */
    @Override
    public void completeStart()
    {
        PendingStart pending = pendingStart;
        if (pending == null) {
            return;
        }
        pendingStart = null;
        try {
            pending.chunk().finish();
        }
        catch (DeviceChunkRefusedException e) {
            pending.givenBack().accept(e.getMessage());
            return;
        }
        finally {
            // Its batch ran: the memory it was read to is no longer read (a given-back chunk is copied down from its own buffer).
            pending.readDone().run();
        }
        chunk = pending.chunk();
        pending.decoded().accept(chunk);
    }

    // The chunk's deferred bodies decompressed on the CPU (each once, into copies): the kernels then read them as stored uncompressed.
    private ReadChunk decompressedOnHost(ReadChunk read, LeafNode leaf)
    {
        String copying = "the dictionary page";
        try {
            DictionaryPage dictionary = ReplayedPages.copy(read.dictionary());
            List<DataPage> copies = new ArrayList<>();
            for (DataPage page : read.pages()) {
                copying = "data page " + copies.size();
                copies.add(ReplayedPages.copy(page));
            }
            return new ReadChunk(dictionary, copies, body -> Optional.empty());
        }
        catch (UncheckedIOException e) {
            throw new CorruptParquetException(file, "column " + leaf.path + ": " + copying + " does not decompress: " + e.getCause().getMessage());
        }
    }

    /** One chunk's pages as read, and the compressed form of the bodies the codec seam deferred. */
    private record ReadChunk(DictionaryPage dictionary, List<DataPage> pages, Function<BytesInput, Optional<CompressedPageCapture.CompressedBody>> compressedOf) {}

    // Pages decompressed by parquet-mr's codecs, checked and copied out of the reader's buffers.
    private static ReadChunk readDecompressed(PageReader reader)
    {
        DictionaryPage dictionary = ReplayedPages.copy(reader.readDictionaryPage());
        List<DataPage> dataPages = new ArrayList<>();
        DataPage page;
        while ((page = reader.readPage()) != null) {
            dataPages.add(ReplayedPages.copy(page));
        }
        return new ReadChunk(dictionary, dataPages, body -> Optional.empty());
    }

    // Pages whose compressed bodies stay compressed: the host checks (CheckedPageReader) would read, and so
    // decompress, every body, so this path checks only what sizes device memory (value counts) and leaves
    // the bytes to the kernels' error flags; a chunk given back to the CPU is checked there as it is read.
    private ReadChunk readDeferred(PageReader raw, PageChecks checks, LeafNode leaf)
    {
        DictionaryPage dictionary;
        List<DataPage> dataPages = new ArrayList<>();
        CompressedPageCapture.Window window = capture.get().open();
        try {
            dictionary = raw.readDictionaryPage();
            long total = raw.getTotalValueCount();
            long seen = 0;
            DataPage page;
            while ((page = raw.readPage()) != null) {
                int values = page.getValueCount();
                if (values < 0 || values > total - seen || (long) values * Integer.BYTES > checks.maxPageBytes()) {
                    throw new CorruptParquetException(file, "column " + leaf.path + " data page " + dataPages.size() + " claims " + values + " values; the chunk has "
                            + (total - seen) + " left of its " + total + " (pages decode to at most " + checks.maxPageBytes() + " bytes)");
                }
                seen += values;
                dataPages.add(page);
            }
        }
        finally {
            window.close();
        }
        return new ReadChunk(dictionary, dataPages, window::compressed);
    }

    @Override
    public FieldVector decode(int rows, BufferAllocator allocator, String timeZone, String file)
    {
        if (chunk != null) {
            throw new IllegalStateException("column " + field().name() + " was decoded into device memory in this row group; it has no host vectors");
        }
        return cpu.decode(rows, allocator, timeZone, file);
    }

    @Override
    public DeviceColumn decodeToDevice(int rows, DeviceTarget target, BufferAllocator staging, String timeZone, String file)
    {
        if (chunk == null) {
            return cpu.decodeToDevice(rows, target, staging, timeZone, file);
        }
        if ((long) cursor + rows > chunk.rows()) {
            throw new CorruptParquetException(file, "column " + field().name() + " ends after " + (chunk.rows() - cursor) + " of " + rows
                    + " rows in this batch: fewer values than the row group's row count");
        }
        DeviceChunkDecode.Batch batch = chunk.batch(cursor, rows);
        cursor += rows;
        List<DeviceBuffer> buffers = new ArrayList<>();
        for (long address : batch.buffers()) {
            buffers.add(kernels.handOver(address));
        }
        return new DeviceColumn(field().name(), field().dataType(), batch.nullCount(), buffers, batch.lengths());
    }

    /** Whether this row group's chunk is decoded by the kernels (else the CPU decodes and uploads). */
    @Override
    public boolean decodesIntoDeviceMemory()
    {
        return chunk != null;
    }

    @Override
    public boolean canDecodeSelected()
    {
        return chunk == null && cpu.canDecodeSelected();
    }

    @Override
    public FieldVector decodeSelected(int rows, int[] selected, int count, BufferAllocator allocator, String timeZone, String file)
    {
        if (chunk != null) {
            throw new IllegalStateException("column " + field().name() + " was decoded into device memory in this row group");
        }
        return cpu.decodeSelected(rows, selected, count, allocator, timeZone, file);
    }

    @Override
    public void checkExhausted(String file, long rowGroupOffset)
    {
        if (chunk == null) {
            cpu.checkExhausted(file, rowGroupOffset);
            return;
        }
        // The row count was checked against the row group's at start; the chunk's device memory goes now.
        closeChunk();
    }

    @Override
    public void release()
    {
        closeChunk();
        givenBackCodecs.release();
    }

    private void closeChunk()
    {
        if (pendingStart != null) {
            pendingStart.chunk().close();
            pendingStart.readDone().run();
            pendingStart = null;
        }

        if (chunk != null) {
            chunk.close();
            chunk = null;
        }
    }

    @Override
    public String position()
    {
        return chunk != null ? "device-decoded chunk at row " + cursor + " of " + chunk.rows() : cpu.position();
    }

    @Override
    public List<String> leafPaths()
    {
        return cpu.leafPaths();
    }
}
