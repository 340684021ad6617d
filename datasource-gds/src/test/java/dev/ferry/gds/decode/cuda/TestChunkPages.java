package dev.ferry.gds.decode.cuda;

import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

// Deprecated encodings (PLAIN_DICTIONARY, BIT_PACKED) still appear in files.
@SuppressWarnings("deprecation")
class TestChunkPages
{
    @Test
    void v1AndV2PagesAreLaidEndToEndWithTheirParts()
    {
        DictionaryPage dictionary = new DictionaryPage(BytesInput.from(new byte[] {1, 0, 0, 0, 2, 0, 0, 0}), 2, Encoding.PLAIN_DICTIONARY);
        // v1: 4-byte level length 2, two level bytes, then the values (bit width byte and runs).
        DataPage v1 = page(new byte[] {2, 0, 0, 0, 9, 9, 1, 3, 0}, 3, Encoding.RLE, Encoding.PLAIN_DICTIONARY);
        DataPage v2 = DataPageV2.uncompressed(2, 0, 2, BytesInput.empty(), BytesInput.from(new byte[] {4, 1}), Encoding.RLE_DICTIONARY,
                BytesInput.from(new byte[] {1, 4, 1}), null);
        ChunkPages pages = ChunkPages.of(dictionary, List.of(v1, v2), 1);
        assertTrue(pages.refusal().isEmpty(), pages.refusal().toString());
        assertTrue(pages.dictionaryEncoded());
        assertEquals(2, pages.dictionarySize());
        assertEquals(5, pages.rowCount());
        assertEquals(new ChunkPages.DataPageLayout(0, 3, 12, 2, 14, 3, 1), pages.pages().get(0));
        assertEquals(new ChunkPages.DataPageLayout(1, 2, 17, 2, 19, 3, 1), pages.pages().get(1));
        assertArrayEquals(new byte[] {1, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 9, 9, 1, 3, 0, 4, 1, 1, 4, 1}, pages.upload());
    }

    @Test
    void chunksTheKernelsDoNotReadAreRefusedWithTheReason()
    {
        DictionaryPage dictionary = new DictionaryPage(BytesInput.from(new byte[8]), 2, Encoding.PLAIN_DICTIONARY);
        DataPage dictionaryPage = page(new byte[] {2, 0, 0, 0, 9, 9, 1}, 1, Encoding.RLE, Encoding.PLAIN_DICTIONARY);
        DataPage plainPage = page(new byte[] {2, 0, 0, 0, 9, 9, 1, 0, 0, 0}, 1, Encoding.RLE, Encoding.PLAIN);
        assertEquals("dictionary and PLAIN data pages in one chunk", ChunkPages.of(dictionary, List.of(dictionaryPage, plainPage), 1).refusal().orElseThrow());
        assertEquals("definition levels encoded BIT_PACKED", ChunkPages.of(null, List.of(page(new byte[4], 1, Encoding.BIT_PACKED, Encoding.PLAIN)), 1)
                .refusal().orElseThrow());
        assertEquals("data page encoding DELTA_BINARY_PACKED", ChunkPages.of(null, List.of(page(new byte[4], 1, Encoding.RLE, Encoding.DELTA_BINARY_PACKED)), 0)
                .refusal().orElseThrow());
        assertEquals("dictionary-encoded data page without a dictionary page", ChunkPages.of(null, List.of(dictionaryPage), 1).refusal().orElseThrow());
        assertTrue(ChunkPages.of(null, List.of(page(new byte[] {(byte) 0xFF, 0, 0, 0, 1}, 1, Encoding.RLE, Encoding.PLAIN)), 1).refusal().orElseThrow()
                .contains("definition levels of 255 bytes in a page of 5"));
    }

    private static DataPage page(byte[] bytes, int values, Encoding levels, Encoding encoding)
    {
        return new DataPageV1(BytesInput.from(bytes), values, bytes.length, null, Encoding.BIT_PACKED, levels, encoding);
    }
}
