package dev.ferry.gds.decode;

import dev.ferry.gds.decode.cuda.PageDescriptor;
import dev.ferry.gds.parquet.CorruptParquetException;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * A resident chunk the device decoder gave back to the CPU (its pages are not ones the kernels
 * decode): its bytes, copied down once, cut into parquet-mr pages at the offsets its device-walked
 * headers gave (every cut checked against the chunk first), and replayed to the CPU decoder ({@link ReplayedPages}),
 * which checks them as it checks pages parquet-mr read. Data page bodies are decompressed with the chunk's codec when
 * the decoder reaches each page, as parquet-mr's own page reader does, so no more than one page's decoded bytes are
 * made at a time beside the decoder's own; the compressed bodies are copies, so the chunk's host copy can go at once.
 */
final class WalkedPagesOnHost
{
    private WalkedPagesOnHost() {}

    static ReplayedPages of(PageReadStore rowGroup, ColumnDescriptor column, ByteBuffer chunk, List<PageDescriptor> pages, CompressionCodecName codec,
            long valueCount, CompressionCodecFactory codecs, String file, String path)
    {
        CompressionCodecFactory.BytesInputDecompressor decompressor = codec == CompressionCodecName.UNCOMPRESSED ? null : codecs.getDecompressor(codec);
        Statistics<?> noStatistics = Statistics.getBuilderForReading(column.getPrimitiveType()).build();
        DictionaryPage dictionary = null;
        List<Supplier<DataPage>> data = new ArrayList<>();
        for (PageDescriptor page : pages) {
            String name = page.type() == PageDescriptor.PageType.DICTIONARY ? "the dictionary page" : "data page " + data.size();
            Failure failure = e -> new CorruptParquetException(file, "column " + path + ": " + name + " (header at chunk offset " + page.headerOffset()
                    + ") cannot be read on the CPU: " + e.getMessage(), e);
            try {
                switch (page.type()) {
                    case DICTIONARY -> dictionary = new DictionaryPage(decompress(slice(chunk, page.bodyOffset(), page.compressedSize()), page.uncompressedSize(),
                            decompressor), page.valueCount(), page.encoding());
                    case DATA_V1 -> {
                        BytesInput stored = slice(chunk, page.bodyOffset(), page.compressedSize());
                        data.add(() -> {
                            try {
                                return new DataPageV1(decompress(stored, page.uncompressedSize(), decompressor), page.valueCount(), page.uncompressedSize(),
                                        noStatistics, page.repetitionEncoding(), page.definitionEncoding(), page.encoding());
                            }
                            catch (IOException | RuntimeException e) {
                                throw failure.of(e);
                            }
                        });
                    }
                    case DATA_V2 -> {
                        int repetition = page.repetitionLevelsLength();
                        int definition = page.definitionLevelsLength();
                        int levels = repetition + definition;
                        BytesInput repetitionLevels = slice(chunk, page.bodyOffset(), repetition);
                        BytesInput definitionLevels = slice(chunk, page.bodyOffset() + repetition, definition);
                        BytesInput stored = slice(chunk, page.bodyOffset() + levels, page.compressedSize() - levels);
                        CompressionCodecFactory.BytesInputDecompressor values = page.compressed() ? decompressor : null;
                        data.add(() -> {
                            try {
                                return DataPageV2.uncompressed(page.rowCount(), page.nullCount(), page.valueCount(), repetitionLevels, definitionLevels,
                                        page.encoding(), decompress(stored, page.uncompressedSize() - levels, values), noStatistics);
                            }
                            catch (IOException | RuntimeException e) {
                                throw failure.of(e);
                            }
                        });
                    }
                    case INDEX -> {
                        // Never described by the walk; nothing to replay.
                    }
                }
            }
            catch (IOException | RuntimeException e) {
                throw failure.of(e);
            }
        }
        return ReplayedPages.lazy(rowGroup, column, dictionary, data, valueCount);
    }

    /** Names the file, column, page and header offset of a page that cannot be cut or decompressed. */
    private interface Failure
    {
        CorruptParquetException of(Exception cause);
    }

    // A body as stored, decompressed when a decompressor is given (the chunk's codec covers it), into bytes of its own.
    private static BytesInput decompress(BytesInput stored, int decoded, CompressionCodecFactory.BytesInputDecompressor decompressor)
            throws IOException
    {
        if (decompressor == null) {
            return stored;
        }
        return BytesInput.from(decompressor.decompress(stored, decoded).toByteArray());
    }

    private static BytesInput slice(ByteBuffer chunk, long offset, int length)
    {
        if (offset < 0 || length < 0 || offset + length > chunk.limit()) {
            throw new IllegalArgumentException(length + " bytes at offset " + offset + " of a chunk of " + chunk.limit());
        }
        byte[] bytes = new byte[length];
        chunk.get((int) offset, bytes);
        return BytesInput.from(bytes);
    }
}
