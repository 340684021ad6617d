package dev.ferry.gds;

import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridDecoder;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.CompressionCodec;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.schema.MessageType;
import org.xerial.snappy.Snappy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * A Parquet file taken apart for tests that damage it: the footer as its Thrift structure, each
 * column chunk as its pages (Thrift header and payload). Tests change headers, payloads, levels or
 * the footer, then {@link #write} lays the file out again with consistent offsets (page indexes and
 * bloom filters are dropped, since their offsets would be stale), or leaves a footer damage in place
 * with the {@code afterLayout} hook. Files come from parquet-mr or Spark in the test itself.
 */
public final class ParquetSurgery
{
    private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);

    public final FileMetaData footer;
    // The file's schema as parquet-mr reads it, for the columns' level maxima.
    public final MessageType schema;
    // [row group][column]
    public final List<List<Chunk>> chunks = new ArrayList<>();

    public static final class Chunk
    {
        public final ColumnChunk metadata;
        public final List<Page> pages = new ArrayList<>();

        Chunk(ColumnChunk metadata)
        {
            this.metadata = metadata;
        }

        public String path()
        {
            return String.join(".", metadata.getMeta_data().getPath_in_schema());
        }

        public CompressionCodec codec()
        {
            return metadata.getMeta_data().getCodec();
        }

        public Page dictionaryPage()
        {
            return pages.stream().filter(page -> page.header.getType() == PageType.DICTIONARY_PAGE).findFirst().orElseThrow();
        }

        public List<Page> dataPages()
        {
            return pages.stream().filter(page -> page.header.getType() != PageType.DICTIONARY_PAGE).toList();
        }
    }

    public static final class Page
    {
        public final PageHeader header;
        public byte[] payload;
        // Bytes written instead of the serialized header: for values no Thrift writer emits (a 64-bit count in an i32 field).
        public byte[] rawHeader;

        Page(PageHeader header, byte[] payload)
        {
            this.header = header;
            this.payload = payload;
        }

        /** The page's bytes decompressed (UNCOMPRESSED and SNAPPY files; a v2 page's levels stay as they are, uncompressed). */
        public byte[] uncompressed(CompressionCodec codec)
                throws IOException
        {
            if (codec == CompressionCodec.UNCOMPRESSED) {
                return payload.clone();
            }
            if (codec != CompressionCodec.SNAPPY) {
                throw new IllegalArgumentException("only UNCOMPRESSED and SNAPPY pages are taken apart, not " + codec);
            }
            int levels = levelBytes();
            byte[] data = Snappy.uncompress(Arrays.copyOfRange(payload, levels, payload.length));
            byte[] whole = Arrays.copyOf(payload, levels + data.length);
            System.arraycopy(data, 0, whole, levels, data.length);
            return whole;
        }

        /** Replaces the page's bytes with {@code bytes} (uncompressed), compressed again and with both sizes in the header set. */
        public void setUncompressed(CompressionCodec codec, byte[] bytes)
                throws IOException
        {
            int levels = levelBytes();
            byte[] data = Arrays.copyOfRange(bytes, levels, bytes.length);
            byte[] stored = codec == CompressionCodec.SNAPPY ? Snappy.compress(data) : data;
            payload = Arrays.copyOf(bytes, levels + stored.length);
            System.arraycopy(stored, 0, payload, levels, stored.length);
            header.setUncompressed_page_size(bytes.length);
            header.setCompressed_page_size(payload.length);
        }

        private int levelBytes()
        {
            return header.getType() == PageType.DATA_PAGE_V2
                    ? header.getData_page_header_v2().getRepetition_levels_byte_length() + header.getData_page_header_v2().getDefinition_levels_byte_length()
                    : 0;
        }

        public int valueCount()
        {
            switch (header.getType()) {
                case DATA_PAGE:
                    return header.getData_page_header().getNum_values();
                case DATA_PAGE_V2:
                    return header.getData_page_header_v2().getNum_values();
                case DICTIONARY_PAGE:
                    return header.getDictionary_page_header().getNum_values();
                default:
                    throw new IllegalStateException("no values in a " + header.getType());
            }
        }
    }

    /** A data page's levels and values section, decoded so a test can change levels and write them back. */
    public static final class Levels
    {
        public final int[] repetition;
        public final int[] definition;
        public final byte[] values;

        Levels(int[] repetition, int[] definition, byte[] values)
        {
            this.repetition = repetition;
            this.definition = definition;
            this.values = values;
        }
    }

    private ParquetSurgery(FileMetaData footer)
            throws IOException
    {
        this.footer = footer;
        this.schema = new ParquetMetadataConverter().fromParquetMetadata(footer).getFileMetaData().getSchema();
    }

    public static ParquetSurgery open(Path file)
            throws IOException
    {
        byte[] bytes = Files.readAllBytes(file);
        int footerLength = ByteBuffer.wrap(bytes, bytes.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        int footerStart = bytes.length - 8 - footerLength;
        ParquetSurgery surgery = new ParquetSurgery(Util.readFileMetaData(new ByteArrayInputStream(bytes, footerStart, footerLength)));
        for (RowGroup group : surgery.footer.getRow_groups()) {
            List<Chunk> columns = new ArrayList<>();
            for (ColumnChunk column : group.getColumns()) {
                ColumnMetaData metadata = column.getMeta_data();
                long start = metadata.isSetDictionary_page_offset() && metadata.getDictionary_page_offset() > 0
                        && metadata.getDictionary_page_offset() < metadata.getData_page_offset()
                        ? metadata.getDictionary_page_offset() : metadata.getData_page_offset();
                long end = start + metadata.getTotal_compressed_size();
                Chunk chunk = new Chunk(column);
                ByteArrayInputStream stream = new ByteArrayInputStream(bytes, (int) start, (int) (end - start));
                while (stream.available() > 0) {
                    PageHeader header = Util.readPageHeader(stream);
                    chunk.pages.add(new Page(header, stream.readNBytes(header.getCompressed_page_size())));
                }
                columns.add(chunk);
            }
            surgery.chunks.add(columns);
        }
        return surgery;
    }

    public Chunk chunk(int rowGroup, String path)
    {
        return chunks.get(rowGroup).stream().filter(chunk -> chunk.path().equals(path)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no column " + path + " in row group " + rowGroup));
    }

    /** Lays the file out again with consistent offsets and sizes and writes it to {@code target}. */
    public Path write(Path target)
            throws IOException
    {
        return write(target, footer -> {});
    }

    /** As {@link #write(Path)}, letting {@code afterLayout} damage the footer once the offsets are set. */
    public Path write(Path target, Consumer<FileMetaData> afterLayout)
            throws IOException
    {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(MAGIC);
        for (int index = 0; index < chunks.size(); index++) {
            RowGroup group = footer.getRow_groups().get(index);
            long groupStart = out.size();
            for (Chunk chunk : chunks.get(index)) {
                ColumnMetaData metadata = chunk.metadata.getMeta_data();
                long chunkStart = out.size();
                long uncompressed = 0;
                boolean firstData = true;
                metadata.unsetDictionary_page_offset();
                for (Page page : chunk.pages) {
                    if (page.header.getType() == PageType.DICTIONARY_PAGE) {
                        metadata.setDictionary_page_offset(out.size());
                    }
                    else if (firstData) {
                        metadata.setData_page_offset(out.size());
                        firstData = false;
                    }
                    int before = out.size();
                    if (page.rawHeader != null) {
                        out.write(page.rawHeader);
                    }
                    else {
                        Util.writePageHeader(page.header, out);
                    }
                    uncompressed += out.size() - before + page.header.getUncompressed_page_size();
                    out.write(page.payload);
                }
                metadata.setTotal_compressed_size(out.size() - chunkStart);
                metadata.setTotal_uncompressed_size(uncompressed);
                metadata.unsetBloom_filter_offset();
                metadata.unsetBloom_filter_length();
                chunk.metadata.setFile_offset(chunkStart);
                chunk.metadata.unsetColumn_index_offset();
                chunk.metadata.unsetColumn_index_length();
                chunk.metadata.unsetOffset_index_offset();
                chunk.metadata.unsetOffset_index_length();
            }
            group.setFile_offset(groupStart);
            group.setTotal_compressed_size(out.size() - groupStart);
        }
        afterLayout.accept(footer);
        ByteArrayOutputStream metadata = new ByteArrayOutputStream();
        Util.writeFileMetaData(footer, metadata);
        metadata.writeTo(out);
        out.write(littleEndian(metadata.size()));
        out.write(MAGIC);
        Files.write(target, out.toByteArray());
        return target;
    }

    /**
     * The page's header serialized with {@code count}, a 64-bit value, as its value count: the header is
     * written with a 5-byte sentinel count, which is replaced by {@code count}'s zigzag varint.
     */
    public static byte[] headerWithCount(Page page, long count)
            throws IOException
    {
        int sentinel = 0x3BCDEF12;
        PageHeader header = page.header.deepCopy();
        switch (header.getType()) {
            case DATA_PAGE:
                header.getData_page_header().setNum_values(sentinel);
                break;
            case DATA_PAGE_V2:
                header.getData_page_header_v2().setNum_values(sentinel);
                break;
            case DICTIONARY_PAGE:
                header.getDictionary_page_header().setNum_values(sentinel);
                break;
            default:
                throw new IllegalArgumentException("no value count in a " + header.getType());
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Util.writePageHeader(header, out);
        byte[] written = out.toByteArray();
        byte[] marker = varint((sentinel << 1) ^ (sentinel >> 31));
        int at = indexOf(written, marker);
        byte[] replacement = varint((count << 1) ^ (count >> 63));
        ByteArrayOutputStream spliced = new ByteArrayOutputStream();
        spliced.write(written, 0, at);
        spliced.write(replacement);
        spliced.write(written, at + marker.length, written.length - at - marker.length);
        return spliced.toByteArray();
    }

    private static byte[] varint(long value)
    {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long rest = value;
        while ((rest & ~0x7FL) != 0) {
            out.write((int) ((rest & 0x7F) | 0x80));
            rest >>>= 7;
        }
        out.write((int) rest);
        return out.toByteArray();
    }

    private static int indexOf(byte[] bytes, byte[] marker)
    {
        for (int index = 0; index + marker.length <= bytes.length; index++) {
            if (Arrays.equals(bytes, index, index + marker.length, marker, 0, marker.length)) {
                return index;
            }
        }
        throw new IllegalStateException("sentinel not found in the serialized header");
    }

    /** {@code file} with the levels of {@code column}'s first data page (row group 0) changed by {@code edit}, written to {@code target}. */
    public static Path withLevels(Path file, String column, Consumer<Levels> edit, Path target)
            throws IOException
    {
        ParquetSurgery surgery = open(file);
        Chunk chunk = surgery.chunk(0, column);
        Page page = chunk.dataPages().get(0);
        Levels levels = surgery.levels(chunk, page);
        edit.accept(levels);
        surgery.setLevels(chunk, page, levels);
        return surgery.write(target);
    }

    /** An UNCOMPRESSED data page's levels (both page versions) and its values section. */
    public Levels levels(Chunk chunk, Page page)
            throws IOException
    {
        ColumnDescriptor column = schema.getColumnDescription(chunk.metadata.getMeta_data().getPath_in_schema().toArray(new String[0]));
        int maxRepetition = column.getMaxRepetitionLevel();
        int maxDefinition = column.getMaxDefinitionLevel();
        int count = page.valueCount();
        ByteBuffer bytes = ByteBuffer.wrap(page.payload).order(ByteOrder.LITTLE_ENDIAN);
        int[] repetition = new int[count];
        int[] definition = new int[count];
        if (page.header.getType() == PageType.DATA_PAGE_V2) {
            int repetitionLength = page.header.getData_page_header_v2().getRepetition_levels_byte_length();
            int definitionLength = page.header.getData_page_header_v2().getDefinition_levels_byte_length();
            decode(bytes, repetitionLength, maxRepetition, repetition);
            decode(bytes, definitionLength, maxDefinition, definition);
        }
        else {
            if (maxRepetition > 0) {
                decode(bytes, bytes.getInt(), maxRepetition, repetition);
            }
            if (maxDefinition > 0) {
                decode(bytes, bytes.getInt(), maxDefinition, definition);
            }
        }
        byte[] values = Arrays.copyOfRange(page.payload, bytes.position(), page.payload.length);
        return new Levels(repetition, definition, values);
    }

    /** Writes {@code levels} back into an UNCOMPRESSED data page of {@code chunk}, encoded at the bit widths of its column's maxima. */
    public void setLevels(Chunk chunk, Page page, Levels levels)
            throws IOException
    {
        ColumnDescriptor column = schema.getColumnDescription(chunk.metadata.getMeta_data().getPath_in_schema().toArray(new String[0]));
        int maxRepetition = column.getMaxRepetitionLevel();
        int maxDefinition = column.getMaxDefinitionLevel();
        byte[] repetition = maxRepetition > 0 ? encode(levels.repetition, maxRepetition) : new byte[0];
        byte[] definition = maxDefinition > 0 ? encode(levels.definition, maxDefinition) : new byte[0];
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (page.header.getType() == PageType.DATA_PAGE_V2) {
            out.write(repetition);
            out.write(definition);
            page.header.getData_page_header_v2().setRepetition_levels_byte_length(repetition.length);
            page.header.getData_page_header_v2().setDefinition_levels_byte_length(definition.length);
        }
        else {
            if (maxRepetition > 0) {
                out.write(littleEndian(repetition.length));
                out.write(repetition);
            }
            if (maxDefinition > 0) {
                out.write(littleEndian(definition.length));
                out.write(definition);
            }
        }
        out.write(levels.values);
        page.payload = out.toByteArray();
        page.header.setCompressed_page_size(page.payload.length);
        page.header.setUncompressed_page_size(page.payload.length);
    }

    private static void decode(ByteBuffer bytes, int length, int maxLevel, int[] into)
            throws IOException
    {
        ByteBuffer section = bytes.slice();
        section.limit(length);
        bytes.position(bytes.position() + length);
        if (maxLevel == 0) {
            return;
        }
        RunLengthBitPackingHybridDecoder decoder = new RunLengthBitPackingHybridDecoder(bitWidth(maxLevel), new ByteArrayInputStream(
                section.array(), section.arrayOffset(), length));
        for (int index = 0; index < into.length; index++) {
            into[index] = decoder.readInt();
        }
    }

    private static byte[] encode(int[] levels, int maxLevel)
            throws IOException
    {
        RunLengthBitPackingHybridEncoder encoder = new RunLengthBitPackingHybridEncoder(bitWidth(maxLevel), 64, 64 * 1024, new HeapByteBufferAllocator());
        for (int level : levels) {
            encoder.writeInt(level);
        }
        return encoder.toBytes().toByteArray();
    }

    private static int bitWidth(int maxLevel)
    {
        return 32 - Integer.numberOfLeadingZeros(maxLevel);
    }

    private static byte[] littleEndian(int value)
    {
        return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(value).array();
    }
}
