package dev.ferry.gds.decode.cuda;

import dev.ferry.common.FerryException;
import dev.ferry.gds.parquet.CorruptParquetException;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DictionaryPage;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.ferry.gds.decode.cuda.KernelTestBytes.download;
import static dev.ferry.gds.decode.cuda.PageBytes.concat;
import static dev.ferry.gds.decode.cuda.PageBytes.ints;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The device decoder's host side on the emulated kernels: values, nulls, and bad bytes refused with the page named, never decoded into rows. */
// Deprecated encodings (PLAIN_DICTIONARY, BIT_PACKED) still appear in files.
@SuppressWarnings("deprecation")
class TestDeviceChunkDecode
{
    private static final DeviceChunkDecode.ChunkName NAME = new DeviceChunkDecode.ChunkName("f.parquet", "c");

    @Test
    void optionalDictionaryIntsWithNullsAcrossBatches()
    {
        KernelEmulation kernels = new KernelEmulation();
        DictionaryPage dictionary = new DictionaryPage(BytesInput.from(ints(10, 20, 30)), 3, Encoding.PLAIN_DICTIONARY);
        // Levels 1,0,1,1 (bit-packed group of 8, width 1: 0b1101), values: width 2, RLE run of 3 x index 2.
        byte[] levels = {3, 0b00001101};
        byte[] values = {2, 6, 2};
        DataPage page = v1(concat(new byte[] {(byte) levels.length, 0, 0, 0}, levels, values), 4, Encoding.PLAIN_DICTIONARY);
        try (DeviceChunkDecode chunk = new DeviceChunkDecode(kernels, NAME, DeviceValueKind.FIXED4, 1, ChunkPages.of(dictionary, List.of(page), 1))) {
            DeviceChunkDecode.Batch first = chunk.batch(0, 3);
            assertEquals(1, first.nullCount());
            assertArrayEquals(new byte[] {0b101}, download(kernels, first.buffers().get(0), 1));
            assertArrayEquals(ints(30, 0, 30), download(kernels, first.buffers().get(1), 12));
            DeviceChunkDecode.Batch second = chunk.batch(3, 1);
            assertEquals(0, second.nullCount());
            assertArrayEquals(ints(30), download(kernels, second.buffers().get(1), 4));
            first.buffers().forEach(kernels::free);
            second.buffers().forEach(kernels::free);
        }
        assertEquals(0, kernels.allocatedBytes(), "chunk memory freed");
    }

    @Test
    void requiredBooleansOfTwoPagesAcrossBatchesStartingMidByte()
    {
        KernelEmulation kernels = new KernelEmulation();
        // Page 0: 5 booleans 1,0,1,1,0 (0b01101); page 1: 6 booleans 1,1,0,0,0,1 (0b100011).
        DataPage first = v1(new byte[] {0b01101}, 5, Encoding.PLAIN);
        DataPage second = v1(new byte[] {0b100011}, 6, Encoding.PLAIN);
        try (DeviceChunkDecode chunk = new DeviceChunkDecode(kernels, NAME, DeviceValueKind.BOOLEANS, 0, ChunkPages.of(null, List.of(first, second), 0))) {
            DeviceChunkDecode.Batch head = chunk.batch(0, 3);
            DeviceChunkDecode.Batch tail = chunk.batch(3, 8);
            assertArrayEquals(new byte[] {0b111}, download(kernels, head.buffers().get(0), 1));
            assertArrayEquals(new byte[] {0b101}, download(kernels, head.buffers().get(1), 1));
            // Rows 3..10: 1,0,1,1,0,0,0,1.
            assertArrayEquals(new byte[] {(byte) 0b10001101}, download(kernels, tail.buffers().get(1), 1));
            assertEquals(List.of(1L, 1L), head.lengths());
            head.buffers().forEach(kernels::free);
            tail.buffers().forEach(kernels::free);
        }
        assertEquals(0, kernels.allocatedBytes());
    }

    @Test
    void aDictionaryIndexPastTheDictionaryIsRefusedNamingThePage()
    {
        KernelEmulation kernels = new KernelEmulation();
        DictionaryPage dictionary = new DictionaryPage(BytesInput.from(ints(10, 20)), 2, Encoding.PLAIN_DICTIONARY);
        DataPage page = v1(new byte[] {2, 6, 3}, 3, Encoding.PLAIN_DICTIONARY);
        CorruptParquetException error = assertThrows(CorruptParquetException.class,
                () -> new DeviceChunkDecode(kernels, NAME, DeviceValueKind.FIXED4, 0, ChunkPages.of(dictionary, List.of(page), 0)));
        assertTrue(error.getMessage().contains("f.parquet") && error.getMessage().contains("column c: the dictionary indices of data page 0")
                && error.getMessage().contains("out of range"), error.getMessage());
        assertEquals(0, kernels.allocatedBytes(), "memory freed after the refusal");
    }

    @Test
    void aStringLengthPastThePageIsRefused()
    {
        KernelEmulation kernels = new KernelEmulation();
        DataPage page = v1(new byte[] {1, 0, 0, 0, 'a', 100, 0, 0, 0, 'b'}, 2, Encoding.PLAIN);
        CorruptParquetException error = assertThrows(CorruptParquetException.class,
                () -> new DeviceChunkDecode(kernels, NAME, DeviceValueKind.STRINGS, 0, ChunkPages.of(null, List.of(page), 0)));
        assertTrue(error.getMessage().contains("PLAIN BYTE_ARRAY values of data page 0: reads past the page's bytes"), error.getMessage());
    }

    @Test
    void levelRunsShorterThanThePageAreRefused()
    {
        KernelEmulation kernels = new KernelEmulation();
        // An RLE run of 2 levels for a page of 5 values, then the bytes end.
        byte[] levels = {4, 1};
        DataPage page = v1(concat(new byte[] {2, 0, 0, 0}, levels, ints(1, 2)), 5, Encoding.PLAIN);
        CorruptParquetException error = assertThrows(CorruptParquetException.class,
                () -> new DeviceChunkDecode(kernels, NAME, DeviceValueKind.FIXED4, 1, ChunkPages.of(null, List.of(page), 1)));
        assertTrue(error.getMessage().contains("the definition levels of data page 0: reads past the page's bytes"), error.getMessage());
    }

    @Test
    void theCudaKernelsRefuseWithTheProbesReasonWhereTheyCannotRun()
    {
        assumeTrue(DeviceKernelsLoader.unavailableReason().isPresent(), "kernels can run here");
        FerryException error = assertThrows(FerryException.class, () -> DeviceKernelsLoader.load(null));
        assertTrue(error.getMessage().contains("CUDA kernels unavailable: "), error.getMessage());
    }

    private static DataPage v1(byte[] bytes, int values, Encoding encoding)
    {
        return new DataPageV1(BytesInput.from(bytes), values, bytes.length, null, Encoding.BIT_PACKED, Encoding.RLE, encoding);
    }
}
