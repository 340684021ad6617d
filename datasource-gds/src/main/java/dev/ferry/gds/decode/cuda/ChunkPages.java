package dev.ferry.gds.decode.cuda;

import dev.ferry.gds.io.CompressedPageCapture.CompressedBody;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import static java.util.Objects.requireNonNull;

/**
 * One flat column chunk's pages as the device decoder uploads them: every page body as stored,
 * laid end to end in one byte array (the single upload), and where each body's decoded bytes go in
 * the chunk buffer the kernels read. A body the codec seam deferred ({@code CompressedPageCapture})
 * is uploaded compressed and decompressed on the device in one batch for the chunk; the others
 * (v2 levels, bodies of UNCOMPRESSED chunks, BROTLI's, decompressed on the CPU) are uploaded as they
 * are and copied into place on the device. Without compressed bodies the upload is the chunk; with
 * them, each compressed body and its output start 16-byte aligned, as nvCOMP requires.
 *
 * <p>Page framing, the v1 4-byte length before the definition levels and a dictionary-encoded
 * page's leading bit-width byte, sits in the decompressed bytes: {@link #frame} reads it through a
 * {@link Framing}, from the host array when nothing was compressed, else from device memory after
 * decompression (a small download per page). Levels and values are decoded by the kernels.
 * {@link #refusal} says why a chunk stays on the CPU (BIT_PACKED levels, an encoding the kernels
 * do not read, PLAIN and dictionary data pages in one chunk, two codecs in one chunk).
 */
// Deprecated encodings (PLAIN_DICTIONARY, BIT_PACKED) still appear in files.
@SuppressWarnings("deprecation")
public final class ChunkPages
{
    /** Where one data page's parts sit in the decoded chunk, its value (row) count, and its dictionary indices' bit width (-1: PLAIN or none read). */
    public record DataPageLayout(int index, int valueCount, int levelsOffset, int levelsLength, int valuesOffset, int valuesLength, int bitWidth) {}

    /**
     * One page body: its stored bytes at {@code uploadOffset} in the upload, its decoded bytes at
     * {@code chunkOffset} in the chunk; a resident chunk's body sits at {@code sourceOffset} of the
     * chunk as read (-1 for an uploaded one), and is decompressed or copied from there
     * ({@code DeviceChunkDecode} stages only the bodies off nvCOMP's alignment, in a layout of its own).
     */
    public record Part(String page, int uploadOffset, int uploadLength, int chunkOffset, int chunkLength, boolean compressed, long sourceOffset) {}

    /** The decoded pages' data page layouts, or why the framing refuses the chunk. */
    public record Framed(List<DataPageLayout> layouts, Optional<String> refusal) {}

    /** Reads framing bytes at an offset of the decoded chunk. */
    public interface Framing
    {
        int readInt(int chunkOffset);

        int readByte(int chunkOffset);
    }

    /** nvCOMP's batched decompressors need their input and output buffers aligned, to at most 16 bytes. */
    static final int COMPRESSED_ALIGNMENT = 16;

    // One data page before its framing is read: a v1 body, or v2 levels and values.
    private record PagePlan(int index, int valueCount, boolean v1, int bodyOffset, int bodyLength, int levelsOffset, int levelsLength, boolean dictionary) {}

    private final byte[] upload;
    private final long uploadLength;
    private final boolean resident;
    private final List<Part> parts;
    private final Optional<CompressionCodecName> codec;
    private final long chunkLength;
    private final long storedBodyBytes;
    private final long decodedBodyBytes;
    private final int maxDefinition;
    private final int dictionaryOffset;
    private final int dictionaryLength;
    private final int dictionarySize;
    private final boolean dictionaryEncoded;
    private final List<PagePlan> plans;
    private final Optional<List<DataPageLayout>> hostFramed;
    private final Optional<String> refusal;

    private ChunkPages(byte[] upload, long uploadLength, boolean resident, List<Part> parts, Optional<CompressionCodecName> codec, long chunkLength,
            int maxDefinition, int dictionaryOffset, int dictionaryLength, int dictionarySize, boolean dictionaryEncoded, List<PagePlan> plans,
            Optional<String> refusal)
    {
        this.upload = upload;
        this.uploadLength = uploadLength;
        this.resident = resident;
        this.parts = List.copyOf(parts);
        this.codec = codec;
        this.chunkLength = chunkLength;
        long stored = 0;
        long decoded = 0;
        for (Part part : this.parts) {
            stored += part.uploadLength();
            decoded += part.chunkLength();
        }
        this.storedBodyBytes = stored;
        this.decodedBodyBytes = decoded;
        this.maxDefinition = maxDefinition;
        this.dictionaryOffset = dictionaryOffset;
        this.dictionaryLength = dictionaryLength;
        this.dictionarySize = dictionarySize;
        this.dictionaryEncoded = dictionaryEncoded;
        this.plans = List.copyOf(plans);
        Optional<String> framingRefusal = Optional.empty();
        Optional<List<DataPageLayout>> framed = Optional.empty();
        if (refusal.isEmpty() && codec.isEmpty() && !resident) {
            // Nothing compressed: the upload is the chunk, and its framing is read here, before anything is uploaded.
            Framed host = frame(new HostFraming(upload));
            framingRefusal = host.refusal();
            framed = host.refusal().isEmpty() ? Optional.of(host.layouts()) : Optional.empty();
        }
        this.hostFramed = framed;
        this.refusal = refusal.isPresent() ? refusal : framingRefusal;
    }

    /** Lays out {@code dictionary} (may be null) and {@code dataPages} of a flat column (maximum definition level 0 or 1), none compressed. */
    public static ChunkPages of(DictionaryPage dictionary, List<DataPage> dataPages, int maxDefinition)
    {
        return of(dictionary, dataPages, maxDefinition, body -> Optional.empty());
    }

    /**
     * Lays out {@code dictionary} (may be null) and {@code dataPages} of a flat column whose maximum
     * definition level is {@code maxDefinition} (0 or 1); {@code compressedOf} gives a body's
     * compressed form where the codec seam deferred its decompression (the body itself is then never read).
     */
    public static ChunkPages of(DictionaryPage dictionary, List<DataPage> dataPages, int maxDefinition, Function<BytesInput, Optional<CompressedBody>> compressedOf)
    {
        requireNonNull(dataPages, "dataPages is null");
        requireNonNull(compressedOf, "compressedOf is null");
        Builder built = new Builder(compressedOf);
        int dictionaryOffset = 0;
        int dictionaryLength = 0;
        int dictionarySize = 0;
        if (dictionary != null) {
            if (dictionary.getEncoding() != Encoding.PLAIN && dictionary.getEncoding() != Encoding.PLAIN_DICTIONARY) {
                return refused("dictionary page encoded " + dictionary.getEncoding());
            }
            Part part = built.add("the dictionary page", dictionary.getBytes());
            dictionaryOffset = part.chunkOffset();
            dictionaryLength = part.chunkLength();
            dictionarySize = dictionary.getDictionarySize();
        }
        List<PagePlan> plans = new ArrayList<>();
        Boolean dictionaryEncoded = null;
        for (DataPage page : dataPages) {
            int index = plans.size();
            Encoding values;
            PagePlan plan;
            if (page instanceof DataPageV1 v1) {
                values = v1.getValueEncoding();
                if (maxDefinition > 0 && v1.getDlEncoding() != Encoding.RLE) {
                    return refused("definition levels encoded " + v1.getDlEncoding());
                }
                Part body = built.add("data page " + index, v1.getBytes());
                plan = new PagePlan(index, page.getValueCount(), true, body.chunkOffset(), body.chunkLength(), 0, 0, isDictionary(values));
            }
            else if (page instanceof DataPageV2 v2) {
                if (v2.isCompressed()) {
                    return refused("data page v2 still compressed");
                }
                values = v2.getDataEncoding();
                Part levels = built.add("the levels of data page " + index, v2.getDefinitionLevels());
                Part data = built.add("data page " + index, v2.getData());
                plan = new PagePlan(index, page.getValueCount(), false, data.chunkOffset(), data.chunkLength(), levels.chunkOffset(), levels.chunkLength(),
                        isDictionary(values));
            }
            else {
                return refused("data page of type " + page.getClass().getSimpleName());
            }
            if (values != Encoding.PLAIN && !isDictionary(values)) {
                return refused("data page encoding " + values);
            }
            if (plan.dictionary() && dictionary == null) {
                return refused("dictionary-encoded data page without a dictionary page");
            }
            if (dictionaryEncoded != null && dictionaryEncoded != plan.dictionary()) {
                return refused("dictionary and PLAIN data pages in one chunk");
            }
            dictionaryEncoded = plan.dictionary();
            if (built.refusal != null) {
                return refused(built.refusal);
            }
            plans.add(plan);
        }
        if (built.refusal != null) {
            return refused(built.refusal);
        }
        byte[] upload = built.upload.toByteArray();
        return new ChunkPages(upload, upload.length, false, built.parts, Optional.ofNullable(built.codec), built.chunkLength, maxDefinition, dictionaryOffset,
                dictionaryLength, dictionarySize, dictionaryEncoded != null && dictionaryEncoded, plans, Optional.empty());
    }

    /**
     * Lays out a column chunk that sits in device memory as read (a GDS read the device decoder
     * takes in place), from its page headers as walked on the device ({@link DevicePageHeaders}):
     * every body stays where the chunk holds it ({@link Part#sourceOffset}) and is staged on the
     * device, compressed with {@code codec} (the chunk's, from the footer) unless it is
     * UNCOMPRESSED or a v2 page says its data is not; v2 levels are never compressed. The same
     * refusals as {@link #of}; the framing is always read from device memory ({@link #frame}).
     */
    public static ChunkPages resident(List<PageDescriptor> pages, CompressionCodecName codec, int maxDefinition)
    {
        requireNonNull(pages, "pages is null");
        requireNonNull(codec, "codec is null");
        boolean compressedCodec = codec != CompressionCodecName.UNCOMPRESSED;
        Builder built = new Builder(body -> Optional.empty());
        int dictionaryOffset = 0;
        int dictionaryLength = 0;
        int dictionarySize = 0;
        boolean hasDictionary = false;
        List<PagePlan> plans = new ArrayList<>();
        Boolean dictionaryEncoded = null;
        for (PageDescriptor page : pages) {
            switch (page.type()) {
                case DICTIONARY -> {
                    if (hasDictionary || !plans.isEmpty()) {
                        return refused("a dictionary page after the chunk's first page");
                    }
                    if (page.encoding() != Encoding.PLAIN && page.encoding() != Encoding.PLAIN_DICTIONARY) {
                        return refused("dictionary page encoded " + page.encoding());
                    }
                    Part part = built.addResident("the dictionary page", page.bodyOffset(), page.compressedSize(), page.uncompressedSize(), compressedCodec, codec);
                    dictionaryOffset = part.chunkOffset();
                    dictionaryLength = part.chunkLength();
                    dictionarySize = page.valueCount();
                    hasDictionary = true;
                }
                case DATA_V1, DATA_V2 -> {
                    int index = plans.size();
                    PagePlan plan;
                    if (page.type() == PageDescriptor.PageType.DATA_V1) {
                        if (maxDefinition > 0 && page.definitionEncoding() != Encoding.RLE) {
                            return refused("definition levels encoded " + page.definitionEncoding());
                        }
                        Part body = built.addResident("data page " + index, page.bodyOffset(), page.compressedSize(), page.uncompressedSize(), compressedCodec, codec);
                        plan = new PagePlan(index, page.valueCount(), true, body.chunkOffset(), body.chunkLength(), 0, 0, isDictionary(page.encoding()));
                    }
                    else {
                        int repetition = page.repetitionLevelsLength();
                        int definition = page.definitionLevelsLength();
                        long levels = (long) repetition + definition;
                        if (repetition < 0 || definition < 0 || levels > page.compressedSize() || levels > page.uncompressedSize()) {
                            return refused("data page " + index + " has levels of " + repetition + " + " + definition + " bytes in a page of " + page.compressedSize());
                        }
                        Part levelsPart = built.addResident("the levels of data page " + index, page.bodyOffset() + repetition, definition, definition, false, codec);
                        Part data = built.addResident("data page " + index, page.bodyOffset() + levels, (int) (page.compressedSize() - levels),
                                (int) (page.uncompressedSize() - levels), compressedCodec && page.compressed(), codec);
                        plan = new PagePlan(index, page.valueCount(), false, data.chunkOffset(), data.chunkLength(), levelsPart.chunkOffset(), levelsPart.chunkLength(),
                                isDictionary(page.encoding()));
                    }
                    if (page.encoding() != Encoding.PLAIN && !isDictionary(page.encoding())) {
                        return refused("data page encoding " + page.encoding());
                    }
                    if (plan.dictionary() && !hasDictionary) {
                        return refused("dictionary-encoded data page without a dictionary page");
                    }
                    if (dictionaryEncoded != null && dictionaryEncoded != plan.dictionary()) {
                        return refused("dictionary and PLAIN data pages in one chunk");
                    }
                    dictionaryEncoded = plan.dictionary();
                    plans.add(plan);
                }
                case INDEX -> {
                    // The walk leaves index pages out; one here carries nothing the decoder reads.
                }
            }
            if (built.refusal != null) {
                return refused(built.refusal);
            }
        }
        return new ChunkPages(new byte[0], built.uploadLength, true, built.parts, Optional.ofNullable(built.codec), built.chunkLength, maxDefinition,
                dictionaryOffset, dictionaryLength, dictionarySize, dictionaryEncoded != null && dictionaryEncoded, plans, Optional.empty());
    }

    private static boolean isDictionary(Encoding values)
    {
        return values == Encoding.PLAIN_DICTIONARY || values == Encoding.RLE_DICTIONARY;
    }

    /** The upload array and part table, filled body by body. */
    private static final class Builder
    {
        private final Function<BytesInput, Optional<CompressedBody>> compressedOf;
        private final ByteArrayOutputStream upload = new ByteArrayOutputStream();
        private final List<Part> parts = new ArrayList<>();
        private CompressionCodecName codec;
        private long uploadLength;
        private long chunkLength;
        private String refusal;

        Builder(Function<BytesInput, Optional<CompressedBody>> compressedOf)
        {
            this.compressedOf = compressedOf;
        }

        Part add(String page, BytesInput body)
        {
            Optional<CompressedBody> compressed = compressedOf.apply(body);
            byte[] stored;
            long decoded;
            if (compressed.isPresent()) {
                CompressedBody deferred = compressed.get();
                stored = deferred.bytes();
                decoded = deferred.uncompressedSize();
            }
            else {
                stored = bytes(body);
                decoded = stored.length;
            }
            Part part = place(page, stored.length, decoded, compressed.isPresent(), compressed.map(CompressedBody::codec).orElse(null), -1);
            if (!parts.isEmpty() && parts.get(parts.size() - 1) == part) {
                upload.writeBytes(new byte[part.uploadOffset() - upload.size()]);
                upload.writeBytes(stored);
            }
            return part;
        }

        /** A body of a resident chunk: {@code stored} bytes at {@code sourceOffset} of the chunk as read, {@code decoded} once decompressed. */
        Part addResident(String page, long sourceOffset, int stored, int decoded, boolean compressed, CompressionCodecName chunkCodec)
        {
            if (stored < 0 || decoded < 0 || (!compressed && stored != decoded)) {
                if (refusal == null) {
                    refusal = page + " stores " + stored + " bytes for " + decoded + " decoded" + (compressed ? "" : " without compression");
                }
                return new Part(page, 0, 0, 0, 0, false, -1);
            }
            return place(page, stored, decoded, compressed, compressed ? chunkCodec : null, sourceOffset);
        }

        // Where a body goes in the upload (or staging) and in the chunk: a compressed body and its output start aligned for nvCOMP.
        private Part place(String page, long stored, long decoded, boolean compressed, CompressionCodecName bodyCodec, long sourceOffset)
        {
            if (compressed) {
                if (codec != null && codec != bodyCodec && refusal == null) {
                    refusal = "pages compressed with " + codec + " and " + bodyCodec + " in one chunk";
                }
                codec = bodyCodec;
            }
            if (uploadLength + stored + COMPRESSED_ALIGNMENT > Integer.MAX_VALUE - 8 || chunkLength + decoded + COMPRESSED_ALIGNMENT > Integer.MAX_VALUE - 8) {
                if (refusal == null) {
                    refusal = "column chunk over 2 GiB";
                }
                return new Part(page, 0, 0, 0, 0, false, -1);
            }
            if (compressed) {
                // The padding is never read.
                uploadLength += pad(uploadLength);
                chunkLength += pad(chunkLength);
            }
            Part part = new Part(page, (int) uploadLength, (int) stored, (int) chunkLength, (int) decoded, compressed, sourceOffset);
            uploadLength += stored;
            chunkLength += decoded;
            parts.add(part);
            return part;
        }
    }

    private static int pad(long offset)
    {
        return (int) ((COMPRESSED_ALIGNMENT - offset % COMPRESSED_ALIGNMENT) % COMPRESSED_ALIGNMENT);
    }

    /** The data pages' layouts with their framing read through {@code framing}, or why the framing refuses the chunk. */
    public Framed frame(Framing framing)
    {
        List<DataPageLayout> layouts = new ArrayList<>();
        for (PagePlan plan : plans) {
            int levelsOffset;
            int levelsLength;
            int valuesOffset;
            int valuesLength;
            if (plan.v1()) {
                int body = plan.bodyLength();
                levelsLength = 0;
                int levelBytes = 0;
                if (maxDefinition > 0) {
                    if (body < 4) {
                        return new Framed(List.of(), Optional.of("data page " + plan.index() + " too short for its definition-level length"));
                    }
                    levelsLength = framing.readInt(plan.bodyOffset());
                    if (levelsLength < 0 || levelsLength > body - 4) {
                        // The CPU decoder reports such a page with its offset; the device path does not guess.
                        return new Framed(List.of(), Optional.of("data page " + plan.index() + " definition levels of " + Integer.toUnsignedString(levelsLength)
                                + " bytes in a page of " + body));
                    }
                    levelBytes = 4 + levelsLength;
                }
                levelsOffset = plan.bodyOffset() + (maxDefinition > 0 ? 4 : 0);
                valuesOffset = plan.bodyOffset() + levelBytes;
                valuesLength = body - levelBytes;
            }
            else {
                levelsOffset = plan.levelsOffset();
                levelsLength = plan.levelsLength();
                valuesOffset = plan.bodyOffset();
                valuesLength = plan.bodyLength();
            }
            int bitWidth = plan.dictionary() && valuesLength >= 1 ? framing.readByte(valuesOffset) : -1;
            layouts.add(new DataPageLayout(plan.index(), plan.valueCount(), levelsOffset, levelsLength, valuesOffset, valuesLength, bitWidth));
        }
        return new Framed(layouts, Optional.empty());
    }

    private static ChunkPages refused(String reason)
    {
        return new ChunkPages(new byte[0], 0, false, List.of(), Optional.empty(), 0, 0, 0, 0, 0, false, List.of(), Optional.of(reason));
    }

    private static byte[] bytes(BytesInput body)
    {
        try {
            return body.toByteArray();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Framing read from the host array of a chunk that had nothing compressed. */
    private record HostFraming(byte[] bytes)
            implements Framing
    {
        @Override
        public int readInt(int offset)
        {
            return (bytes[offset] & 0xFF) | (bytes[offset + 1] & 0xFF) << 8 | (bytes[offset + 2] & 0xFF) << 16 | (bytes[offset + 3] & 0xFF) << 24;
        }

        @Override
        public int readByte(int offset)
        {
            return bytes[offset] & 0xFF;
        }
    }

    public Optional<String> refusal()
    {
        return refusal;
    }

    /** The one upload: every body as stored, end to end (empty for a resident chunk, whose bodies are read where they lie on the device). */
    public byte[] upload()
    {
        return upload;
    }

    /** Bytes of the upload, or for a resident chunk the most its staging buffer on the device could take (every body misaligned). */
    public long uploadLength()
    {
        return uploadLength;
    }

    /** Whether the bodies sit in device memory as read ({@link #resident}) rather than in {@link #upload}. */
    public boolean isResident()
    {
        return resident;
    }

    /** The bodies in upload order. */
    public List<Part> parts()
    {
        return parts;
    }

    /** The codec of the compressed bodies; empty when none is compressed (the upload is the chunk). */
    public Optional<CompressionCodecName> codec()
    {
        return codec;
    }

    /** Bytes of the decoded chunk (the upload's length when nothing is compressed). */
    public long chunkLength()
    {
        return chunkLength;
    }

    /** Bytes of the page bodies as stored (the upload without alignment padding). */
    public long storedBodyBytes()
    {
        return storedBodyBytes;
    }

    /** Bytes of the page bodies decoded (the chunk without alignment padding). */
    public long decodedBodyBytes()
    {
        return decodedBodyBytes;
    }

    /** The data pages' layouts when nothing is compressed (framing read on the host); else the device reads it after decompression ({@link #frame}). */
    public Optional<List<DataPageLayout>> hostFramed()
    {
        return hostFramed;
    }

    /** The data pages' layouts of a chunk with nothing compressed. */
    public List<DataPageLayout> pages()
    {
        return hostFramed.orElseThrow(() -> new IllegalStateException("a compressed chunk's framing is read from device memory after decompression"));
    }

    public int dictionaryOffset()
    {
        return dictionaryOffset;
    }

    public int dictionaryLength()
    {
        return dictionaryLength;
    }

    public int dictionarySize()
    {
        return dictionarySize;
    }

    public boolean dictionaryEncoded()
    {
        return dictionaryEncoded;
    }

    /** Data pages in the chunk. */
    public int pageCount()
    {
        return plans.size();
    }

    public long rowCount()
    {
        long rows = 0;
        for (PagePlan plan : plans) {
            rows += plan.valueCount();
        }
        return rows;
    }
}
