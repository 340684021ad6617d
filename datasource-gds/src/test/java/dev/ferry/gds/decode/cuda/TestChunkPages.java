package dev.ferry.gds.decode.cuda;

import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import dev.ferry.gds.io.CompressedPageCapture.CompressedBody;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
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

    @Test
    void compressedBodiesAreUploadedAsStoredAlignedAndFramedAfterDecompression()
    {
        // Decoded bodies as in the test above; their "compressed" forms are stand-ins of other lengths.
        BytesInput dictionaryBody = BytesInput.from(new byte[] {1, 0, 0, 0, 2, 0, 0, 0});
        BytesInput v1Body = BytesInput.from(new byte[] {2, 0, 0, 0, 9, 9, 1, 3, 0});
        BytesInput v2Data = BytesInput.from(new byte[] {1, 4, 1});
        Map<BytesInput, CompressedBody> compressed = new IdentityHashMap<>();
        compressed.put(dictionaryBody, new CompressedBody(CompressionCodecName.ZSTD, new byte[] {10, 11, 12}, 8));
        compressed.put(v1Body, new CompressedBody(CompressionCodecName.ZSTD, new byte[] {20, 21, 22, 23, 24}, 9));
        compressed.put(v2Data, new CompressedBody(CompressionCodecName.ZSTD, new byte[] {30, 31}, 3));
        DictionaryPage dictionary = new DictionaryPage(dictionaryBody, 2, Encoding.PLAIN_DICTIONARY);
        DataPage v1 = new DataPageV1(v1Body, 3, 9, null, Encoding.BIT_PACKED, Encoding.RLE, Encoding.PLAIN_DICTIONARY);
        DataPage v2 = DataPageV2.uncompressed(2, 0, 2, BytesInput.empty(), BytesInput.from(new byte[] {4, 1}), Encoding.RLE_DICTIONARY, v2Data, null);
        ChunkPages pages = ChunkPages.of(dictionary, List.of(v1, v2), 1, body -> Optional.ofNullable(compressed.get(body)));
        assertTrue(pages.refusal().isEmpty(), pages.refusal().toString());
        assertEquals(Optional.of(CompressionCodecName.ZSTD), pages.codec());
        assertTrue(pages.hostFramed().isEmpty(), "framing waits for the decompressed bytes");
        assertThrows(IllegalStateException.class, pages::pages);
        // Compressed bodies and their outputs start 16-byte aligned; the v2 levels (never compressed) are copied as they are.
        assertEquals(List.of(
                        new ChunkPages.Part("the dictionary page", 0, 3, 0, 8, true, -1),
                        new ChunkPages.Part("data page 0", 16, 5, 16, 9, true, -1),
                        new ChunkPages.Part("the levels of data page 1", 21, 2, 25, 2, false, -1),
                        new ChunkPages.Part("data page 1", 32, 2, 32, 3, true, -1)),
                pages.parts());
        assertArrayEquals(new byte[] {10, 11, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 20, 21, 22, 23, 24, 4, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 30, 31}, pages.upload());
        assertEquals(35, pages.chunkLength());
        assertEquals(3 + 5 + 2 + 2, pages.storedBodyBytes());
        assertEquals(8 + 9 + 2 + 3, pages.decodedBodyBytes());
        // The decoded chunk as the device holds it after decompression; framing is read from it.
        byte[] decoded = new byte[35];
        System.arraycopy(new byte[] {1, 0, 0, 0, 2, 0, 0, 0}, 0, decoded, 0, 8);
        System.arraycopy(new byte[] {2, 0, 0, 0, 9, 9, 1, 3, 0}, 0, decoded, 16, 9);
        System.arraycopy(new byte[] {4, 1}, 0, decoded, 25, 2);
        System.arraycopy(new byte[] {1, 4, 1}, 0, decoded, 32, 3);
        ChunkPages.Framed framed = pages.frame(new ChunkPages.Framing()
        {
            @Override
            public int readInt(int offset)
            {
                return decoded[offset] & 0xFF | (decoded[offset + 1] & 0xFF) << 8 | (decoded[offset + 2] & 0xFF) << 16 | (decoded[offset + 3] & 0xFF) << 24;
            }

            @Override
            public int readByte(int offset)
            {
                return decoded[offset] & 0xFF;
            }
        });
        assertTrue(framed.refusal().isEmpty(), framed.refusal().toString());
        assertEquals(List.of(new ChunkPages.DataPageLayout(0, 3, 20, 2, 22, 3, 1), new ChunkPages.DataPageLayout(1, 2, 25, 2, 32, 3, 1)), framed.layouts());

        Map<BytesInput, CompressedBody> twoCodecs = new IdentityHashMap<>(compressed);
        twoCodecs.put(v2Data, new CompressedBody(CompressionCodecName.SNAPPY, new byte[] {30, 31}, 3));
        assertEquals("pages compressed with ZSTD and SNAPPY in one chunk",
                ChunkPages.of(dictionary, List.of(v1, v2), 1, body -> Optional.ofNullable(twoCodecs.get(body))).refusal().orElseThrow());
    }

    private static DataPage page(byte[] bytes, int values, Encoding levels, Encoding encoding)
    {
        return new DataPageV1(BytesInput.from(bytes), values, bytes.length, null, Encoding.BIT_PACKED, levels, encoding);
    }
}
