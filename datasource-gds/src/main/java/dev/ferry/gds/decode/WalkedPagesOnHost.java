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

/**
 * A resident chunk the device decoder gave back to the CPU (its pages are not ones the kernels
 * decode): its bytes, copied down once, cut into parquet-mr pages at the offsets its device-walked
 * headers gave, each body decompressed once with the chunk's codec, and replayed to the CPU decoder
 * ({@link ReplayedPages}), which checks them as it checks pages parquet-mr read.
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
        List<DataPage> data = new ArrayList<>();
        for (PageDescriptor page : pages) {
            String name = page.type() == PageDescriptor.PageType.DICTIONARY ? "the dictionary page" : "data page " + data.size();
            try {
                switch (page.type()) {
                    case DICTIONARY -> dictionary = new DictionaryPage(body(chunk, page.bodyOffset(), page.compressedSize(), page.uncompressedSize(), decompressor),
                            page.valueCount(), page.encoding());
                    case DATA_V1 -> data.add(new DataPageV1(body(chunk, page.bodyOffset(), page.compressedSize(), page.uncompressedSize(), decompressor),
                            page.valueCount(), page.uncompressedSize(), noStatistics, page.repetitionEncoding(), page.definitionEncoding(), page.encoding()));
                    case DATA_V2 -> {
                        int repetition = page.repetitionLevelsLength();
                        int definition = page.definitionLevelsLength();
                        int levels = repetition + definition;
                        BytesInput values = body(chunk, page.bodyOffset() + levels, page.compressedSize() - levels, page.uncompressedSize() - levels,
                                page.compressed() ? decompressor : null);
                        data.add(DataPageV2.uncompressed(page.rowCount(), page.nullCount(), page.valueCount(), slice(chunk, page.bodyOffset(), repetition),
                                slice(chunk, page.bodyOffset() + repetition, definition), page.encoding(), values, noStatistics));
                    }
                    case INDEX -> {
                        // Never described by the walk; nothing to replay.
                    }
                }
            }
            catch (IOException | RuntimeException e) {
                throw new CorruptParquetException(file, "column " + path + ": " + name + " (header at chunk offset " + page.headerOffset() + ") cannot be read on the CPU: "
                        + e.getMessage(), e);
            }
        }
        return new ReplayedPages(rowGroup, column, dictionary, data, valueCount);
    }

    // One body as a copy of its own: decompressed when a decompressor is given (the chunk's codec covers it).
    private static BytesInput body(ByteBuffer chunk, long offset, int stored, int decoded, CompressionCodecFactory.BytesInputDecompressor decompressor)
            throws IOException
    {
        BytesInput bytes = slice(chunk, offset, stored);
        if (decompressor == null) {
            return bytes;
        }
        return BytesInput.from(decompressor.decompress(bytes, decoded).toByteArray());
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
