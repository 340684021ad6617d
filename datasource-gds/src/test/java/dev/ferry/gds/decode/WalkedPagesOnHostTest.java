package dev.ferry.gds.decode;

import dev.ferry.gds.decode.cuda.PageDescriptor;
import dev.ferry.gds.parquet.CorruptParquetException;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopCodecs;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A given-back chunk's pages are cut at their walked offsets at once (every cut checked) but decompressed only when
 * the CPU decoder reaches each page: a damaged body fails there, naming its page, and the pages before it read.
 */
class WalkedPagesOnHostTest
{
    private static final ColumnDescriptor COLUMN = new ColumnDescriptor(new String[] {"x"},
            Types.required(PrimitiveType.PrimitiveTypeName.INT32).named("x"), 0, 0);

    @Test
    void bodiesDecompressPageByPageAndADamagedOneFailsWhereItIsRead()
            throws Exception
    {
        CompressionCodecFactory codecs = HadoopCodecs.newFactory(0);
        try {
            ByteArrayOutputStream chunk = new ByteArrayOutputStream();
            List<PageDescriptor> pages = new ArrayList<>();
            List<byte[]> plain = new ArrayList<>();
            for (int page = 0; page < 3; page++) {
                ByteBuffer values = ByteBuffer.allocate(400).order(ByteOrder.LITTLE_ENDIAN);
                for (int value = 0; value < 100; value++) {
                    values.putInt(page * 1000 + value);
                }
                plain.add(values.array());
                byte[] stored = codecs.getCompressor(CompressionCodecName.SNAPPY).compress(BytesInput.from(values.array())).toByteArray();
                if (page == 2) {
                    stored = new byte[stored.length]; // not a snappy stream of 400 bytes
                    java.util.Arrays.fill(stored, (byte) 0xff);
                }
                long header = chunk.size();
                chunk.write(new byte[7]); // stands in for the Thrift header the walk skipped
                pages.add(new PageDescriptor(page, PageDescriptor.PageType.DATA_V1, header, chunk.size(), stored.length, 400, 100, Encoding.PLAIN,
                        Encoding.RLE, Encoding.RLE, 0, 0, 0, 100, true, false));
                chunk.write(stored);
            }
            ReplayedPages replayed = WalkedPagesOnHost.of(rowGroup(), COLUMN, ByteBuffer.wrap(chunk.toByteArray()), pages, CompressionCodecName.SNAPPY, 300,
                    codecs, "file.parquet", "x");
            PageReader reader = replayed.getPageReader(COLUMN);
            assertNull(reader.readDictionaryPage());
            assertEquals(300, reader.getTotalValueCount());
            assertArrayEquals(plain.get(0), ((DataPageV1) reader.readPage()).getBytes().toByteArray());
            assertArrayEquals(plain.get(1), ((DataPageV1) reader.readPage()).getBytes().toByteArray());
            CorruptParquetException damaged = assertThrows(CorruptParquetException.class, reader::readPage);
            assertTrue(damaged.getMessage().contains("file.parquet") && damaged.getMessage().contains("column x: data page 2"), damaged.getMessage());
            assertNull(reader.readPage());

            // A page reaching past the chunk is refused when the chunk is cut, before any page is read.
            List<PageDescriptor> past = List.of(new PageDescriptor(0, PageDescriptor.PageType.DATA_V1, 0, 7, chunk.size(), 400, 100, Encoding.PLAIN,
                    Encoding.RLE, Encoding.RLE, 0, 0, 0, 100, true, false));
            CorruptParquetException cut = assertThrows(CorruptParquetException.class, () -> WalkedPagesOnHost.of(rowGroup(), COLUMN,
                    ByteBuffer.wrap(chunk.toByteArray()), past, CompressionCodecName.SNAPPY, 100, codecs, "file.parquet", "x"));
            assertTrue(cut.getMessage().contains("data page 0 (header at chunk offset 0)"), cut.getMessage());
        }
        finally {
            codecs.release();
        }
    }

    private static PageReadStore rowGroup()
    {
        return new PageReadStore()
        {
            @Override
            public PageReader getPageReader(ColumnDescriptor descriptor)
            {
                throw new AssertionError("only the replaced column is read");
            }

            @Override
            public long getRowCount()
            {
                return 300;
            }
        };
    }
}
