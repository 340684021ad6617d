package dev.ferry.gds.decode.cuda;

import dev.ferry.common.FerryException;
import dev.ferry.device.kernel.KernelErrorFlags;
import dev.ferry.gds.parquet.CorruptParquetException;

import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * The host side of the device decoder for one flat column chunk: one upload of the chunk's page
 * bodies as stored ({@link ChunkPages}: compressed where the codec seam deferred them), one batched
 * decompression of the compressed bodies of the whole row group, every chunk's, from device memory
 * into each chunk buffer the kernels read (nvCOMP on a GPU, {@link DecodeKernels#decompress}:
 * {@link #staged}, {@link #decompressTogether}, {@link #finish}), the page framing read back from the
 * decompressed bytes (a 4-byte levels length per optional v1 page and a bit-width byte per
 * dictionary-encoded page, counted in {@link #framingBytes}), then kernels only. A body that does
 * not decompress, or framing the kernels do not take, gives the chunk back to the CPU
 * ({@link DeviceChunkRefusedException}, with the reason). At the start of the row group it decodes, for the whole
 * chunk, the definition levels (one value per row), each row's dense slot (a prefix sum of the
 * valid rows) and the dense values: PLAIN values converted to their Arrow width, or a converted
 * dictionary and every page's indices; strings as an entry table (start, length) into the uploaded
 * pages. Each {@link #batch} then writes one batch's Arrow buffers (validity, values or offsets and
 * data) by gathering from those, in the layout the CPU decoder writes. Host reads are a 4-byte
 * error word after each step, each page's first dense slot, a batch's null count and string byte
 * count, and a compressed chunk's framing: never row data.
 *
 * <p>A resident chunk ({@link ChunkPages#resident}: a GDS read left it in device memory, its page
 * headers walked there by {@link DevicePageHeaders}) uploads nothing: a compressed body that starts
 * where nvCOMP can read it is decompressed from there, the others are copied on the device from
 * where the read put them (one {@code parquet_copy.cu} launch for all of them, {@link DeviceRangeCopy}:
 * misaligned compressed bodies into an aligned staging buffer, the rest into place), and its framing
 * is read back as for a compressed chunk.
 *
 * <p>Any error bit a kernel set becomes a {@link CorruptParquetException} naming the column and
 * the page (or batch), so bad bytes never become a wrong row. Close frees the chunk's memory.
 */
public final class DeviceChunkDecode
        implements AutoCloseable
{
    /** Where the chunk sits in the file and how to name it in errors. */
    public record ChunkName(String file, String column) {}

    /** One batch's Arrow buffers (addresses in the kernels' memory) with their exact lengths, and its null count. */
    public record Batch(List<Long> buffers, List<Long> lengths, int nullCount) {}

    private static final int SCAN_CHUNK = 1024;

    private final DecodeKernels kernels;
    private final ChunkName name;
    private final DeviceValueKind kind;
    private final int maxDefinition;
    private final ChunkPages pages;
    private final long resident;
    // Compressed bodies waiting for their row group's batch (null once decompressed, or when nothing is compressed).
    private PendingDecompression pending;
    // Bytes of one Parquet value (the column's type length for FIXED_LEN_BYTE_ARRAY decimals).
    private final int valueWidth;
    private List<ChunkPages.DataPageLayout> layouts;
    private long uploadedBytes;
    private long framingBytes;
    // A resident chunk's compressed bodies: decompressed where the read put them, or copied to staging first (and those bytes).
    private int bodiesInPlace;
    private int bodiesStaged;
    private long stagedBytes;
    private final int rows;
    private final List<Long> owned = new ArrayList<>();
    private final long errors;
    private long chunk;
    private long levels;
    private long positions;
    private long denseTotal;
    // Fixed width: converted dense values (PLAIN) or the converted dictionary plus dense indices.
    private long dense;
    private long dictionary;
    private long indices;
    // Strings: entries (start in the chunk upload, length), one per dictionary entry or dense value.
    private long entryStarts;
    private long entryLengths;
    private long entryCount;

    public DeviceChunkDecode(DecodeKernels kernels, ChunkName name, DeviceValueKind kind, int maxDefinition, ChunkPages pages)
    {
        this(kernels, name, kind, 0, maxDefinition, pages, 0);
    }

    /**
     * {@code typeLength}: the column's FIXED_LEN_BYTE_ARRAY length (for {@link DeviceValueKind#DECIMAL_FIXED_LEN}; else unused).
     * {@code resident}: where a resident chunk ({@link ChunkPages#resident}) sits as read in the
     * kernels' memory (its bodies are read from there, nothing is uploaded); 0 for an uploaded one.
     * The caller keeps that memory, which is no longer read once this constructor returns. Stages,
     * decompresses (a batch of this chunk alone) and decodes the chunk.
     */
    public DeviceChunkDecode(DecodeKernels kernels, ChunkName name, DeviceValueKind kind, int typeLength, int maxDefinition, ChunkPages pages, long resident)
    {
        this(kernels, name, kind, typeLength, maxDefinition, pages, resident, true);
        decompressTogether(List.of(this));
        finish();
    }

    /**
     * The chunk staged in device memory (uploaded or copied from where it was read, bodies that need
     * no decompression in place) with its decompression pending, so the chunks of a row group
     * decompress in one batch per codec ({@link #decompressTogether}); {@link #finish} then decodes
     * it. Arguments as for the constructor; a resident chunk's memory is read until its batch ran (its aligned
     * compressed bodies are decompressed from there), so the caller keeps it until {@link #finish} or {@link #close}.
     */
    public static DeviceChunkDecode staged(DecodeKernels kernels, ChunkName name, DeviceValueKind kind, int typeLength, int maxDefinition, ChunkPages pages,
            long resident)
    {
        return new DeviceChunkDecode(kernels, name, kind, typeLength, maxDefinition, pages, resident, true);
    }

    private DeviceChunkDecode(DecodeKernels kernels, ChunkName name, DeviceValueKind kind, int typeLength, int maxDefinition, ChunkPages pages, long resident,
            boolean stageOnly)
    {
        this.kernels = requireNonNull(kernels, "kernels is null");
        if (kind == DeviceValueKind.DECIMAL_FIXED_LEN && (typeLength < 1 || typeLength > 16)) {
            throw new IllegalArgumentException("FIXED_LEN_BYTE_ARRAY decimals of " + typeLength + " bytes are not decimal128");
        }
        this.valueWidth = kind.parquetWidth(typeLength);
        if (pages.isResident() != (resident != 0)) {
            throw new IllegalArgumentException(pages.isResident() ? "a resident chunk needs the address it was read to" : "an uploaded chunk has no resident address");
        }
        this.resident = resident;
        this.name = requireNonNull(name, "name is null");
        this.kind = requireNonNull(kind, "kind is null");
        this.pages = requireNonNull(pages, "pages is null");
        if (pages.refusal().isPresent()) {
            throw new IllegalArgumentException("chunk refused for the device: " + pages.refusal().get());
        }
        if (maxDefinition != 0 && maxDefinition != 1) {
            throw new IllegalArgumentException("flat columns have definition level 0 or 1, not " + maxDefinition);
        }
        this.maxDefinition = maxDefinition;
        long rowCount = pages.rowCount();
        if (rowCount > Integer.MAX_VALUE - 1) {
            throw new CorruptParquetException(name.file(), "column " + name.column() + " has a chunk of " + rowCount + " rows");
        }
        this.rows = (int) rowCount;
        this.errors = own(4);
        boolean success = false;
        try {
            clearErrors();
            placeChunk();
            success = true;
        }
        finally {
            if (!success) {
                close();
            }
        }
    }

    /**
     * Decompresses the pending bodies of {@code chunks} (staged, not yet finished; all on the same
     * kernels) in one batched call per codec: nvCOMP's batched API over every compressed page of a
     * row group. A body that fails, or a batch that fails as a whole, is recorded on its chunk, which
     * {@link #finish} then gives back to the CPU.
     */
    public static void decompressTogether(List<DeviceChunkDecode> chunks)
    {
        Map<CompressionCodecName, List<DeviceChunkDecode>> byCodec = new LinkedHashMap<>();
        for (DeviceChunkDecode chunk : chunks) {
            if (chunk.pending != null && chunk.pending.outcome == null) {
                byCodec.computeIfAbsent(chunk.pending.codec, codec -> new ArrayList<>()).add(chunk);
            }
        }
        for (Map.Entry<CompressionCodecName, List<DeviceChunkDecode>> entry : byCodec.entrySet()) {
            List<DeviceChunkDecode> batch = entry.getValue();
            int total = 0;
            for (DeviceChunkDecode chunk : batch) {
                total += chunk.pending.parts.size();
            }
            long[] in = new long[total];
            long[] inBytes = new long[total];
            long[] out = new long[total];
            long[] outBytes = new long[total];
            int next = 0;
            for (DeviceChunkDecode chunk : batch) {
                PendingDecompression job = chunk.pending;
                System.arraycopy(job.in, 0, in, next, job.in.length);
                System.arraycopy(job.inBytes, 0, inBytes, next, job.in.length);
                System.arraycopy(job.out, 0, out, next, job.in.length);
                System.arraycopy(job.outBytes, 0, outBytes, next, job.in.length);
                next += job.in.length;
            }
            DecodeKernels kernels = batch.get(0).kernels;
            String[] failures;
            try {
                failures = kernels.decompress(entry.getKey(), in, inBytes, out, outBytes);
            }
            catch (FerryException e) {
                // The batch as a whole failed (nvCOMP's status, a CUDA error): each of its chunks goes to the CPU with the reason.
                String reason = entry.getKey() + " batched decompression of " + total + " page bodies (" + batch.size() + " chunks) failed on the device ("
                        + kernels.describe() + "): " + e.getMessage();
                batch.forEach(chunk -> chunk.pending.outcome = reason);
                continue;
            }
            next = 0;
            for (DeviceChunkDecode chunk : batch) {
                PendingDecompression job = chunk.pending;
                job.outcome = "";
                for (int i = 0; i < job.in.length; i++) {
                    if (failures[next + i] != null && job.outcome.isEmpty()) {
                        job.outcome = entry.getKey() + " " + job.parts.get(i).page() + " did not decompress on the device (" + kernels.describe() + "): " + failures[next + i];
                    }
                }
                next += job.in.length;
            }
        }
    }

    /**
     * Decodes a staged chunk once its bodies are decompressed ({@link #decompressTogether}): the
     * framing read back, then the kernels. A body that did not decompress, or framing the kernels do
     * not take, is a {@link DeviceChunkRefusedException} (the chunk's memory is freed); bad bytes a
     * {@link CorruptParquetException}.
     */
    public void finish()
    {
        boolean success = false;
        try {
            if (pending != null) {
                if (pending.outcome == null) {
                    throw new IllegalStateException("column " + name.column() + ": finished before its bodies were decompressed");
                }
                String outcome = pending.outcome;
                if (pending.stored != 0) {
                    kernels.free(pending.stored);
                    owned.remove(Long.valueOf(pending.stored));
                }
                pending = null;
                if (!outcome.isEmpty()) {
                    throw new DeviceChunkRefusedException(outcome);
                }
            }
            if (layouts == null) {
                layouts = frameOnDevice();
            }
            decodeChunk();
            success = true;
        }
        finally {
            if (!success) {
                close();
            }
        }
    }

    public int rows()
    {
        return rows;
    }

    /** Bytes of the chunk's one host-to-device upload: its page bodies as stored (compressed where they were). */
    public long uploadedBytes()
    {
        return uploadedBytes;
    }

    /** A resident chunk's compressed bodies decompressed straight from where the read put them: no device copy made. */
    public int bodiesDecompressedInPlace()
    {
        return bodiesInPlace;
    }

    /** A resident chunk's compressed bodies off nvCOMP's alignment, each copied once on the device into the staging buffer. */
    public int bodiesStaged()
    {
        return bodiesStaged;
    }

    /** Bytes of {@link #bodiesStaged} (the staging copies' bytes, padding left out). */
    public long stagedBytes()
    {
        return stagedBytes;
    }

    /** Bytes of page framing read back from device memory after decompression (0 when nothing was compressed). */
    public long framingBytes()
    {
        return framingBytes;
    }

    private long own(long bytes)
    {
        long address = kernels.allocate(Math.max(8, bytes));
        owned.add(address);
        return address;
    }

    private void decodeChunk()
    {
        int[] denseStarts = new int[layouts.size() + 1];
        if (maxDefinition == 1) {
            levels = own(4L * rows);
            RunTable runs = new RunTable(maxPageValues());
            int rowStart = 0;
            for (ChunkPages.DataPageLayout page : layouts) {
                runs.decode(chunk + page.levelsOffset(), page.levelsLength(), 1, page.valueCount(), 1, levels + 4L * rowStart);
                check("the definition levels of data page " + page.index());
                rowStart += page.valueCount();
            }
            positions = own(4L * (rows + 1));
            scan(levels, rows, 1, 1, positions);
            check("the valid-row prefix sum");
            rowStart = 0;
            for (int p = 0; p < layouts.size(); p++) {
                denseStarts[p] = readInt(positions + 4L * rowStart);
                rowStart += layouts.get(p).valueCount();
            }
            denseStarts[layouts.size()] = readInt(positions + 4L * rows);
        }
        else {
            int rowStart = 0;
            for (int p = 0; p < layouts.size(); p++) {
                denseStarts[p] = rowStart;
                rowStart += layouts.get(p).valueCount();
            }
            denseStarts[layouts.size()] = rows;
        }
        denseTotal = denseStarts[layouts.size()];
        if (kind == DeviceValueKind.BOOLEANS) {
            if (pages.dictionaryEncoded()) {
                throw corrupt("dictionary-encoded BOOLEAN data pages");
            }
            // Dense bits of the whole chunk, each page's appended at its first dense slot.
            dense = own((denseTotal + 7) / 8);
            for (ChunkPages.DataPageLayout page : layouts) {
                int start = denseStarts[page.index()];
                int count = denseStarts[page.index() + 1] - start;
                if (((long) count + 7) / 8 > page.valuesLength()) {
                    throw corrupt("data page " + page.index() + " holds " + page.valuesLength() + " value bytes, fewer than its " + count + " booleans");
                }
                kernels.copyBits(chunk + page.valuesOffset(), count, dense, start);
            }
        }
        else if (pages.dictionaryEncoded()) {
            decodeDictionary();
            indices = own(4L * denseTotal);
            RunTable runs = new RunTable(maxPageValues());
            for (ChunkPages.DataPageLayout page : layouts) {
                int count = denseStarts[page.index() + 1] - denseStarts[page.index()];
                if (count == 0) {
                    continue;
                }
                if (page.valuesLength() < 1) {
                    throw corrupt("data page " + page.index() + " has " + count + " dictionary-encoded values but no bytes");
                }
                int bitWidth = page.bitWidth();
                if (bitWidth < 0 || bitWidth > 32) {
                    throw corrupt("data page " + page.index() + " has dictionary indices of bit width " + bitWidth);
                }
                runs.decode(chunk + page.valuesOffset() + 1, page.valuesLength() - 1, bitWidth, count, (long) pages.dictionarySize() - 1,
                        indices + 4L * denseStarts[page.index()]);
                check("the dictionary indices of data page " + page.index());
            }
        }
        else if (kind == DeviceValueKind.STRINGS) {
            entryCount = denseTotal;
            entryStarts = own(8L * denseTotal);
            entryLengths = own(4L * denseTotal);
            for (ChunkPages.DataPageLayout page : layouts) {
                int start = denseStarts[page.index()];
                int count = denseStarts[page.index() + 1] - start;
                kernels.plainByteArrayIndex(chunk + page.valuesOffset(), page.valuesLength(), count, page.valuesOffset(), entryStarts + 8L * start,
                        entryLengths + 4L * start, errors);
                check("the PLAIN BYTE_ARRAY values of data page " + page.index());
            }
        }
        else {
            dense = own((long) kind.arrowWidth() * denseTotal);
            for (ChunkPages.DataPageLayout page : layouts) {
                int start = denseStarts[page.index()];
                int count = denseStarts[page.index() + 1] - start;
                if ((long) count * valueWidth > page.valuesLength()) {
                    throw corrupt("data page " + page.index() + " holds " + page.valuesLength() + " value bytes, fewer than its " + count + " values of "
                            + valueWidth + " bytes");
                }
                convert(chunk + page.valuesOffset(), count, dense + (long) kind.arrowWidth() * start);
                check("the PLAIN values of data page " + page.index());
            }
        }
    }

    /**
     * The chunk in device memory at {@link #chunk}: uploaded, or copied from where it was read; with
     * nothing compressed the data pages' layouts are known now (framed on the host, or on the device
     * for a resident chunk at {@link #finish}), else the compressed bodies wait for their batch
     * ({@link #pending}) in the upload, or, for a resident chunk, where the read put them or in a staging buffer.
     */
    private void placeChunk()
    {
        if (pages.isResident()) {
            placeResident();
            return;
        }
        byte[] upload = pages.upload();
        uploadedBytes = upload.length;
        if (pages.codec().isEmpty()) {
            chunk = own(upload.length);
            kernels.upload(upload, 0, upload.length, chunk);
            layouts = pages.pages();
            return;
        }
        long stored = own(upload.length);
        kernels.upload(upload, 0, upload.length, stored);
        prepareDecompression(stored);
    }

    // A chunk that sits in device memory as read: nothing is uploaded (but a range table of 24 bytes per copied body), and
    // its bodies move on the device in one launch. Without a codec that launch is the chunk. With one, a compressed body that
    // already starts at an address nvCOMP takes (see inPlaceForNvcomp) is decompressed from where the read put it, copied
    // nowhere; a misaligned one is copied first into an aligned staging buffer; bodies stored as they are (v2 levels) go
    // straight into place. Misaligned and stored-as-is bodies share the one launch.
    private void placeResident()
    {
        uploadedBytes = 0;
        DeviceRangeCopy bodies = new DeviceRangeCopy(kernels);
        chunk = own(pages.chunkLength());
        if (pages.codec().isEmpty()) {
            for (ChunkPages.Part part : pages.parts()) {
                bodies.add(resident + part.sourceOffset(), chunk + part.chunkOffset(), part.chunkLength());
            }
            bodies.run();
            return;
        }
        List<ChunkPages.Part> compressed = new ArrayList<>();
        for (ChunkPages.Part part : pages.parts()) {
            if (part.compressed()) {
                compressed.add(part);
            }
            else {
                bodies.add(resident + part.sourceOffset(), chunk + part.chunkOffset(), part.chunkLength());
            }
        }
        // The staging buffer holds the misaligned bodies only, each at a multiple of the alignment (the padding is never read).
        long[] stagingOffsets = new long[compressed.size()];
        long stagingLength = 0;
        boolean staged = false;
        for (int i = 0; i < compressed.size(); i++) {
            ChunkPages.Part part = compressed.get(i);
            if (inPlaceForNvcomp(resident + part.sourceOffset())) {
                stagingOffsets[i] = -1;
                continue;
            }
            staged = true;
            stagingLength += (ChunkPages.COMPRESSED_ALIGNMENT - stagingLength % ChunkPages.COMPRESSED_ALIGNMENT) % ChunkPages.COMPRESSED_ALIGNMENT;
            stagingOffsets[i] = stagingLength;
            stagingLength += part.uploadLength();
        }
        // Allocated even when the misaligned bodies are all empty: nvCOMP still gets an aligned address for each.
        long staging = staged ? own(stagingLength) : 0;
        PendingDecompression job = new PendingDecompression(pages.codec().get(), staging, compressed);
        for (int i = 0; i < compressed.size(); i++) {
            ChunkPages.Part part = compressed.get(i);
            if (stagingOffsets[i] < 0) {
                job.in[i] = resident + part.sourceOffset();
                bodiesInPlace++;
            }
            else {
                job.in[i] = staging + stagingOffsets[i];
                bodies.add(resident + part.sourceOffset(), job.in[i], part.uploadLength());
                bodiesStaged++;
                stagedBytes += part.uploadLength();
            }
            job.inBytes[i] = part.uploadLength();
            job.out[i] = chunk + part.chunkOffset();
            job.outBytes[i] = part.chunkLength();
        }
        bodies.run();
        pending = job;
    }

    /**
     * Whether nvCOMP reads a compressed body at {@code address} as it is. nvCOMP's batched decompressors each state
     * their own input alignment (1 to 16 bytes, by codec and version); this code assumes the largest,
     * {@link ChunkPages#COMPRESSED_ALIGNMENT}, for every codec, as the uploaded path's layout does, so one rule holds
     * whichever codec the chunk has. Outputs need no check: they are in {@link #chunk}, laid out aligned by {@link ChunkPages}.
     */
    static boolean inPlaceForNvcomp(long address)
    {
        return address % ChunkPages.COMPRESSED_ALIGNMENT == 0;
    }

    // The bodies that need no decompression (v2 levels, uncompressed bodies) copied from {@code stored} into place in one
    // launch; the compressed ones recorded for the row group's batch.
    private void prepareDecompression(long stored)
    {
        chunk = own(pages.chunkLength());
        List<ChunkPages.Part> compressed = new ArrayList<>();
        DeviceRangeCopy inPlace = new DeviceRangeCopy(kernels);
        for (ChunkPages.Part part : pages.parts()) {
            if (part.compressed()) {
                compressed.add(part);
            }
            else {
                inPlace.add(stored + part.uploadOffset(), chunk + part.chunkOffset(), part.chunkLength());
            }
        }
        inPlace.run();
        PendingDecompression job = new PendingDecompression(pages.codec().get(), stored, compressed);
        for (int i = 0; i < compressed.size(); i++) {
            ChunkPages.Part part = compressed.get(i);
            job.in[i] = stored + part.uploadOffset();
            job.inBytes[i] = part.uploadLength();
            job.out[i] = chunk + part.chunkOffset();
            job.outBytes[i] = part.chunkLength();
        }
        pending = job;
    }

    /**
     * A staged chunk's compressed bodies: where they are and go, the buffer they were uploaded or staged in (0: a
     * resident chunk's bodies all decompressed in place), and (once its batch ran) the first failure, or "".
     */
    private static final class PendingDecompression
    {
        private final CompressionCodecName codec;
        private final long stored;
        private final List<ChunkPages.Part> parts;
        private final long[] in;
        private final long[] inBytes;
        private final long[] out;
        private final long[] outBytes;
        private String outcome;

        PendingDecompression(CompressionCodecName codec, long stored, List<ChunkPages.Part> parts)
        {
            this.codec = codec;
            this.stored = stored;
            this.parts = List.copyOf(parts);
            this.in = new long[parts.size()];
            this.inBytes = new long[parts.size()];
            this.out = new long[parts.size()];
            this.outBytes = new long[parts.size()];
        }
    }

    // The page framing read back from the decoded chunk in device memory, a few bytes per page (counted).
    private List<ChunkPages.DataPageLayout> frameOnDevice()
    {
        ChunkPages.Framed framed = pages.frame(new ChunkPages.Framing()
        {
            @Override
            public int readInt(int offset)
            {
                framingBytes += 4;
                return DeviceChunkDecode.this.readInt(chunk + offset);
            }

            @Override
            public int readByte(int offset)
            {
                byte[] one = new byte[1];
                kernels.download(chunk + offset, one, 0, 1);
                framingBytes += 1;
                return one[0] & 0xFF;
            }
        });
        if (framed.refusal().isPresent()) {
            throw new DeviceChunkRefusedException(framed.refusal().get());
        }
        return framed.layouts();
    }

    private void decodeDictionary()
    {
        int size = pages.dictionarySize();
        if (size < 0) {
            throw corrupt("dictionary page of " + size + " entries");
        }
        long dictionaryPage = chunk + pages.dictionaryOffset();
        if (kind == DeviceValueKind.STRINGS) {
            entryCount = size;
            entryStarts = own(8L * size);
            entryLengths = own(4L * size);
            kernels.plainByteArrayIndex(dictionaryPage, pages.dictionaryLength(), size, pages.dictionaryOffset(), entryStarts, entryLengths, errors);
            check("the dictionary page");
            return;
        }
        if ((long) size * valueWidth > pages.dictionaryLength()) {
            throw corrupt("dictionary page of " + size + " entries of " + valueWidth + " bytes holds only " + pages.dictionaryLength() + " bytes");
        }
        dictionary = own((long) kind.arrowWidth() * size);
        convert(dictionaryPage, size, dictionary);
        check("the dictionary page");
    }

    private void convert(long in, int count, long out)
    {
        if (count == 0) {
            return;
        }
        switch (kind) {
            case FIXED4, FIXED8 -> kernels.copy(in, out, (long) count * valueWidth);
            case INT96_MICROS -> kernels.int96ToMicros(in, count, out);
            case DECIMAL_INT32, DECIMAL_INT64 -> kernels.decimalTo128(in, count, valueWidth, 0, out, errors);
            case DECIMAL_FIXED_LEN -> kernels.decimalTo128(in, count, valueWidth, 1, out, errors);
            case TIMESTAMP_MILLIS -> kernels.timestampToMicros(in, count, 1000, 1, out, errors);
            case INT8, INT16 -> kernels.int32Narrow(in, count, kind.arrowWidth(), out);
            case STRINGS, BOOLEANS -> throw new IllegalStateException(kind + " are not converted");
        }
    }

    /**
     * The Arrow buffers of rows [{@code firstRow}, {@code firstRow + count}): validity, then values
     * (fixed width) or offsets and data (strings), each allocated by the kernels' memory and owned by
     * the caller, with the lengths {@code ArrowDeviceUpload.lengths} gives the CPU decoder's vector.
     */
    public Batch batch(int firstRow, int count)
    {
        if (firstRow < 0 || count < 0 || (long) firstRow + count > rows) {
            throw new IllegalArgumentException("rows [" + firstRow + ", " + ((long) firstRow + count) + ") of a chunk of " + rows);
        }
        List<Long> buffers = new ArrayList<>();
        boolean success = false;
        try {
            long validityLength = (count + 7) / 8;
            long validity = allocateOut(buffers, validityLength);
            int nullCount;
            long bitmap;
            long slots;
            if (maxDefinition == 1) {
                kernels.levelsBitmap(levels + 4L * firstRow, count, 1, validity);
                nullCount = count - (readInt(positions + 4L * (firstRow + count)) - readInt(positions + 4L * firstRow));
                bitmap = validity;
                slots = positions + 4L * firstRow;
            }
            else {
                // A required column's validity is all ones: a constant, not row data, so the host writes it.
                kernels.upload(allValid(count), 0, (int) validityLength, validity);
                nullCount = 0;
                bitmap = 0;
                slots = 0;
            }
            // Without positions a value's slot is its index in the batch: the dense arrays start at the batch's first row.
            long skip = maxDefinition == 1 ? 0 : firstRow;
            List<Long> lengths = new ArrayList<>(List.of(validityLength));
            if (kind == DeviceValueKind.STRINGS) {
                long lengthsScratch = kernels.allocate(Math.max(8, 4L * count));
                try {
                    boolean fromDictionary = pages.dictionaryEncoded();
                    long entryLengthBase = fromDictionary ? entryLengths : entryLengths + 4 * skip;
                    long entryStartBase = fromDictionary ? entryStarts : entryStarts + 8 * skip;
                    int entries = (int) (fromDictionary ? entryCount : entryCount - skip);
                    long indexBase = fromDictionary ? indices + 4 * skip : 0;
                    kernels.stringLengths(fromDictionary ? 1 : 0, entryLengthBase, entries, indexBase, bitmap, slots, count, lengthsScratch, errors);
                    long offsetsLength = 4L * (count + 1);
                    long offsets = allocateOut(buffers, offsetsLength);
                    scan(lengthsScratch, count, 0, 0, offsets);
                    check("the string lengths of rows " + firstRow + " to " + (firstRow + count));
                    int dataLength = readInt(offsets + 4L * count);
                    long data = allocateOut(buffers, dataLength);
                    kernels.stringGather(fromDictionary ? 1 : 0, chunk, entryStartBase, entryLengthBase, entries, indexBase, bitmap, slots, count, offsets, data);
                    lengths.add(offsetsLength);
                    lengths.add((long) dataLength);
                }
                finally {
                    kernels.free(lengthsScratch);
                }
            }
            else if (kind == DeviceValueKind.BOOLEANS) {
                long values = allocateOut(buffers, validityLength);
                kernels.spacedBooleans(dense, denseTotal, skip, bitmap, slots, count, values, errors);
                lengths.add(validityLength);
            }
            else {
                int width = kind.arrowWidth();
                long values = allocateOut(buffers, (long) width * count);
                if (pages.dictionaryEncoded()) {
                    kernels.dictGatherFixed(dictionary, pages.dictionarySize(), width, indices + 4 * skip, bitmap, slots, count, values, errors);
                }
                else {
                    kernels.spacedFixed(dense + width * skip, denseTotal - skip, width, bitmap, slots, count, values, errors);
                }
                lengths.add((long) width * count);
            }
            check("rows " + firstRow + " to " + (firstRow + count));
            success = true;
            return new Batch(List.copyOf(buffers), List.copyOf(lengths), nullCount);
        }
        finally {
            if (!success) {
                buffers.forEach(kernels::free);
            }
        }
    }

    // Arrow buffers are 8-byte aligned and never empty on the device, as ArrowDeviceUpload allocates them.
    private long allocateOut(List<Long> buffers, long length)
    {
        long address = kernels.allocate(Math.max(8, (length + 7) & ~7L));
        buffers.add(address);
        return address;
    }

    private static byte[] allValid(int count)
    {
        byte[] bitmap = new byte[Math.max(1, (count + 7) / 8)];
        for (int i = 0; i < count; i++) {
            bitmap[i >> 3] |= (byte) (1 << (i & 7));
        }
        return bitmap;
    }

    private int maxPageValues()
    {
        int max = 1;
        for (ChunkPages.DataPageLayout page : layouts) {
            max = Math.max(max, page.valueCount());
        }
        return max;
    }

    /** Exclusive prefix sum of {@code count} u32 values (or of their equality with {@code match}) into {@code count + 1} ints. */
    private void scan(long values, int count, int flagsOnly, int match, long out)
    {
        int chunks = (count + SCAN_CHUNK - 1) / SCAN_CHUNK;
        long sums = kernels.allocate(8L * (chunks + 1));
        try {
            kernels.scanChunkSums(values, count, SCAN_CHUNK, flagsOnly, match, sums);
            kernels.scanChunkStarts(sums, chunks);
            if (count == 0) {
                kernels.upload(new byte[4], 0, 4, out);
            }
            else {
                kernels.scanWrite(values, count, SCAN_CHUNK, flagsOnly, match, sums, out, errors);
            }
        }
        finally {
            kernels.free(sums);
        }
    }

    /** A run table sized for the largest page, reused page by page. */
    private final class RunTable
    {
        private final int capacity;
        private final long starts;
        private final long lengths;
        private final long kinds;
        private final long offsets;
        private final long count;

        RunTable(int capacity)
        {
            this.capacity = capacity;
            this.starts = own(4L * capacity);
            this.lengths = own(4L * capacity);
            this.kinds = own(4L * capacity);
            this.offsets = own(8L * capacity);
            this.count = own(4);
        }

        void decode(long data, long byteCount, int bitWidth, int valueCount, long maxValue, long out)
        {
            if (valueCount == 0) {
                return;
            }
            kernels.rleRuns(data, byteCount, bitWidth, valueCount, Math.min(valueCount, capacity), starts, lengths, kinds, offsets, count, errors);
            kernels.rleExpand(data, byteCount, bitWidth, starts, lengths, kinds, offsets, count, valueCount, maxValue, out, errors);
        }
    }

    private int readInt(long address)
    {
        byte[] word = new byte[4];
        kernels.download(address, word, 0, 4);
        return (word[0] & 0xFF) | (word[1] & 0xFF) << 8 | (word[2] & 0xFF) << 16 | (word[3] & 0xFF) << 24;
    }

    private void clearErrors()
    {
        kernels.upload(new byte[4], 0, 4, errors);
    }

    private void check(String step)
    {
        int flags = readInt(errors);
        if (flags != 0) {
            throw corrupt(step + ": " + KernelErrorFlags.describe(flags) + " (device decoder, " + kernels.describe() + ")");
        }
    }

    private CorruptParquetException corrupt(String message)
    {
        return new CorruptParquetException(name.file(), "column " + name.column() + ": " + message);
    }

    @Override
    public void close()
    {
        for (long address : owned) {
            kernels.free(address);
        }
        owned.clear();
    }
}
