package dev.ferry.gds.decode.cuda;

import dev.ferry.gds.decode.cuda.DevicePageHeaders.Chunk;
import dev.ferry.gds.decode.cuda.DevicePageHeaders.Walked;
import dev.ferry.gds.parquet.CorruptParquetException;
import org.apache.parquet.format.DataPageHeader;
import org.apache.parquet.format.DataPageHeaderV2;
import org.apache.parquet.format.DictionaryPageHeader;
import org.apache.parquet.format.Encoding;
import org.apache.parquet.format.IndexPageHeader;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.Statistics;
import org.apache.parquet.format.Util;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The device page-header walk on bytes parquet-mr's writer never produces, on the Java emulation and
 * on the CUDA C source compiled for the host: every Thrift compact type stepped over (long-form ids,
 * containers, 10-byte varints) as parquet-mr reads it; malformed headers (cut short, an 11-byte
 * varint, a negative or oversized size, nesting past the stack, a missing field, unknown page,
 * compact and encoding ids, value counts that do not add up, misplaced dictionaries, v2 levels past
 * the page) a {@link CorruptParquetException} naming the column and the file offsets of the header
 * and of the value at fault; more pages than the first launch's slots walked again; and random
 * corruption of real headers giving the same outcome on both, never another exception.
 */
class TestDevicePageHeadersMalformed
{
    private static final long FILE_OFFSET = 1000;
    private static final long MAX_PAGE_BYTES = 1 << 20;

    @RegisterExtension
    static final KernelImplementations KERNELS = new KernelImplementations();

    @AfterAll
    static void stop()
    {
        for (DecodeKernels kernels : KERNELS.all()) {
            assertEquals(0, TestDevicePageHeadersOnCorpora.allocated(kernels), kernels.describe() + ": kernel memory left behind");
        }
    }

    @Test
    void everySkippedCompactTypeReadsAsParquetMrReadsIt()
            throws IOException
    {
        CompactBytes header = new CompactBytes()
                .i32(1, 0).i32(1, 40).i32(1, 6)
                // Unknown PageHeader fields, long-form ids, of every compact type.
                .longField(100, CompactBytes.TRUE).longField(101, CompactBytes.FALSE)
                .longField(102, CompactBytes.BYTE).raw(0xFF)
                .longField(103, CompactBytes.I16).zigzag(-300)
                .longField(104, CompactBytes.I64).raw(0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01)
                .longField(105, CompactBytes.DOUBLE).raw(1, 2, 3, 4, 5, 6, 7, 8)
                .longField(106, CompactBytes.BINARY).varint(3).raw('a', 'b', 'c')
                .longField(107, CompactBytes.LIST).raw(0x35).zigzag(1).zigzag(2).zigzag(3)
                .longField(108, CompactBytes.LIST).raw(0xF8).varint(16);
        for (int i = 0; i < 16; i++) {
            header.varint(1).raw('x');
        }
        header.longField(109, CompactBytes.SET).raw(0x31, 1, 2, 1)
                .longField(110, CompactBytes.MAP).varint(2).raw(0x8C).varint(1).raw('k').field(1, CompactBytes.I32).zigzag(7).stop()
                .varint(1).raw('l').field(3, CompactBytes.STRUCT).field(1, CompactBytes.LIST).raw(0x1C).stop().stop().stop()
                .longField(111, CompactBytes.MAP).varint(0)
                .longField(112, CompactBytes.STRUCT).stop()
                // The data page header after the unknown fields, by a long-form id, with statistics and an unknown field inside.
                .longField(5, CompactBytes.STRUCT).i32(1, 6).i32(1, 8).i32(1, 3).i32(1, 3)
                .field(1, CompactBytes.STRUCT).field(1, CompactBytes.BINARY).varint(2).raw(9, 9).field(2, CompactBytes.I64).zigzag(-5).stop()
                .longField(30, CompactBytes.TRUE)
                .stop()
                .stop();
        byte[] chunk = new CompactBytes().raw(header.bytes()).raw(new byte[6]).raw(CompactBytes.v1Page(4, 3).bytes()).bytes();
        List<PageDescriptor> expected = ParquetMrPageHeaders.pages(chunk);
        assertEquals(2, expected.size());
        for (DecodeKernels kernels : KERNELS.all()) {
            assertEquals(expected, walk(kernels, chunk, 10).pages(), kernels.describe());
        }
    }

    @Test
    void indexPagesAreSteppedOverAndV2FieldsRead()
            throws IOException
    {
        PageHeader dictionary = new PageHeader(PageType.DICTIONARY_PAGE, 12, 12).setDictionary_page_header(new DictionaryPageHeader(3, Encoding.PLAIN).setIs_sorted(true));
        PageHeader index = new PageHeader(PageType.INDEX_PAGE, 5, 5).setIndex_page_header(new IndexPageHeader());
        PageHeader v2 = new PageHeader(PageType.DATA_PAGE_V2, 30, 20).setCrc(-77)
                .setData_page_header_v2(new DataPageHeaderV2(9, 2, 9, Encoding.RLE_DICTIONARY, 3, 0).setIs_compressed(false)
                        .setStatistics(new Statistics().setNull_count(2).setMin_value(new byte[] {1}).setMax_value(new byte[] {7})));
        PageHeader v2Compressed = new PageHeader(PageType.DATA_PAGE_V2, 30, 20).setData_page_header_v2(new DataPageHeaderV2(1, 0, 1, Encoding.PLAIN, 0, 0));
        byte[] chunk = pages(dictionary, 12, index, 5, v2, 20, v2Compressed, 20);
        List<PageDescriptor> expected = ParquetMrPageHeaders.pages(chunk);
        assertEquals(3, expected.size());
        assertTrue(expected.get(1).hasCrc() && !expected.get(1).compressed() && expected.get(2).compressed(), expected.toString());
        for (DecodeKernels kernels : KERNELS.all()) {
            assertEquals(expected, walk(kernels, chunk, 10).pages(), kernels.describe());
        }
    }

    @Test
    void aHeaderCutShortIsRefusedWhereItEnds()
    {
        byte[] first = CompactBytes.v1Page(2, 4).bytes();
        byte[] second = CompactBytes.v1Page(3, 4).bytes();
        int headerLength = second.length - 4;
        for (DecodeKernels kernels : KERNELS.all()) {
            for (int cut = 1; cut < headerLength; cut++) {
                byte[] chunk = new CompactBytes().raw(first).raw(Arrays.copyOf(second, cut)).bytes();
                CorruptParquetException error = assertThrows(CorruptParquetException.class, () -> walk(kernels, chunk, 5), "cut at " + cut);
                assertTrue(error.getMessage().contains("column c: page header at file offset " + (FILE_OFFSET + first.length) + ": "
                        + PageHeaderSlots.describe(PageHeaderSlots.TRUNCATED) + " at file offset "), error.getMessage());
            }
            // Cut after the nested struct's third field header: the value that does not fit starts at the chunk's end.
            int cut = new CompactBytes().i32(1, 0).i32(1, 4).i32(1, 4).field(2, CompactBytes.STRUCT).i32(1, 3).i32(1, 0).field(1, CompactBytes.I32).size();
            byte[] chunk = new CompactBytes().raw(first).raw(Arrays.copyOf(second, cut)).bytes();
            assertCorrupt(kernels, chunk, 5, first.length, PageHeaderSlots.TRUNCATED, chunk.length);
            // The body cut short instead.
            byte[] body = new CompactBytes().raw(first).raw(Arrays.copyOf(second, headerLength + 2)).bytes();
            assertCorrupt(kernels, body, 5, first.length, PageHeaderSlots.BODY_PAST_END, first.length + headerLength);
        }
    }

    @Test
    void badVarintsAndSizesAreRefusedAtTheirFirstByte()
    {
        CompactBytes prefix = new CompactBytes().i32(1, 0).field(1, CompactBytes.I32);
        int at = prefix.size();
        byte[] eleven = new CompactBytes().raw(prefix.bytes()).raw(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01).bytes();
        byte[] tenthTooBig = new CompactBytes().raw(prefix.bytes()).raw(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02).bytes();
        byte[] notAnI32 = new CompactBytes().raw(prefix.bytes()).zigzag(1L << 40).bytes();
        byte[] negative = new CompactBytes().i32(1, 0).i32(1, 4).i32(1, -5).bytes();
        int negativeAt = new CompactBytes().i32(1, 0).i32(1, 4).field(1, CompactBytes.I32).size();
        byte[] pastEnd = new CompactBytes().raw(CompactBytes.v1Header(1, 100, 0).bytes()).raw(new byte[10]).bytes();
        byte[] longId = new CompactBytes().i32(1, 0).longField(1 << 20, CompactBytes.I32).bytes();
        for (DecodeKernels kernels : KERNELS.all()) {
            assertCorrupt(kernels, eleven, 1, 0, PageHeaderSlots.LONG_VARINT, at);
            assertCorrupt(kernels, tenthTooBig, 1, 0, PageHeaderSlots.LONG_VARINT, at);
            assertCorrupt(kernels, notAnI32, 1, 0, PageHeaderSlots.INT_RANGE, at);
            assertCorrupt(kernels, negative, 1, 0, PageHeaderSlots.NEGATIVE, negativeAt);
            assertCorrupt(kernels, pastEnd, 1, 0, PageHeaderSlots.BODY_PAST_END, pastEnd.length - 10);
            assertCorrupt(kernels, longId, 1, 0, PageHeaderSlots.INT_RANGE, 3);
        }
    }

    @Test
    void nestingPastTheStackIsRefusedAndUpToItRead()
            throws IOException
    {
        for (DecodeKernels kernels : KERNELS.all()) {
            for (int depth : new int[] {PageHeaderSlots.MAX_DEPTH, PageHeaderSlots.MAX_DEPTH + 1, 40}) {
                // An unknown PageHeader field holding `depth` structs, each the only field of the one around it.
                CompactBytes header = new CompactBytes().i32(1, 0).i32(1, 0).i32(1, 0).longField(20, CompactBytes.STRUCT);
                int first = header.size();
                for (int level = 1; level < depth; level++) {
                    header.field(1, CompactBytes.STRUCT);
                }
                for (int level = 0; level < depth; level++) {
                    header.stop();
                }
                header.longField(5, CompactBytes.STRUCT);
                byte[] chunk = new CompactBytes().raw(header.bytes()).i32(1, 1).i32(1, 0).i32(1, 3).i32(1, 3).stop().stop().bytes();
                if (depth <= PageHeaderSlots.MAX_DEPTH) {
                    assertEquals(ParquetMrPageHeaders.pages(chunk), walk(kernels, chunk, 1).pages(), "depth " + depth);
                }
                else {
                    // The container that does not fit is the value after the field headers of the MAX_DEPTH - 1 structs inside the first, and its own.
                    assertCorrupt(kernels, chunk, 1, 0, PageHeaderSlots.TOO_DEEP, first + PageHeaderSlots.MAX_DEPTH);
                }
            }
        }
    }

    @Test
    void missingFieldsAndUnknownIdsAreRefused()
    {
        byte[] noCompressedSize = new CompactBytes().i32(1, 0).i32(1, 4).field(3, CompactBytes.STRUCT).i32(1, 1).i32(1, 0).i32(1, 3).i32(1, 3).stop().stop().bytes();
        byte[] noRepetitionEncoding = new CompactBytes().i32(1, 0).i32(1, 0).i32(1, 0).field(2, CompactBytes.STRUCT).i32(1, 1).i32(1, 0).i32(1, 3).stop().stop().bytes();
        byte[] noDataPageHeader = new CompactBytes().i32(1, 0).i32(1, 0).i32(1, 0).stop().bytes();
        byte[] unknownPageType = new CompactBytes().i32(1, 7).i32(1, 0).i32(1, 0).stop().bytes();
        byte[] unknownCompactType = new CompactBytes().i32(1, 0).field(15, 13).raw(0, 0).bytes();
        byte[] badElementType = new CompactBytes().i32(1, 0).field(15, CompactBytes.LIST).raw(0x10).bytes();
        byte[] listPastEnd = new CompactBytes().i32(1, 0).field(15, CompactBytes.LIST).raw(0xF5).varint(1000).raw(2, 2).bytes();
        byte[] unknownEncoding = CompactBytes.v1Header(1, 0, 42).bytes();
        byte[] groupVarInt = CompactBytes.v1Header(1, 0, 1).bytes();
        for (DecodeKernels kernels : KERNELS.all()) {
            assertCorrupt(kernels, noCompressedSize, 1, 0, PageHeaderSlots.MISSING_FIELD, noCompressedSize.length - 1);
            assertCorrupt(kernels, noRepetitionEncoding, 1, 0, PageHeaderSlots.MISSING_FIELD, noRepetitionEncoding.length - 2);
            assertCorrupt(kernels, noDataPageHeader, 1, 0, PageHeaderSlots.MISSING_FIELD, noDataPageHeader.length - 1);
            assertCorrupt(kernels, unknownPageType, 1, 0, PageHeaderSlots.PAGE_TYPE, 1);
            assertCorrupt(kernels, unknownCompactType, 1, 0, PageHeaderSlots.COMPACT_TYPE, 3);
            assertCorrupt(kernels, badElementType, 1, 0, PageHeaderSlots.COMPACT_TYPE, 3);
            assertCorrupt(kernels, listPastEnd, 1, 0, PageHeaderSlots.TRUNCATED, 3);
            assertHostRefusal(kernels, unknownEncoding, 1, 0, "unknown encoding id 42");
            assertHostRefusal(kernels, groupVarInt, 1, 0, "unknown encoding id 1");
        }
    }

    @Test
    void theHostChecksWhatTheKernelCannot()
            throws IOException
    {
        byte[] v1 = CompactBytes.v1Page(3, 2).bytes();
        PageHeader dictionaryHeader = new PageHeader(PageType.DICTIONARY_PAGE, 4, 4).setDictionary_page_header(new DictionaryPageHeader(2, Encoding.PLAIN));
        byte[] lateDictionary = new CompactBytes().raw(v1).raw(pages(dictionaryHeader, 4)).bytes();
        PageHeader levelsPastPage = new PageHeader(PageType.DATA_PAGE_V2, 10, 6).setData_page_header_v2(new DataPageHeaderV2(3, 0, 3, Encoding.PLAIN, 5, 2));
        PageHeader moreNullsThanValues = new PageHeader(PageType.DATA_PAGE_V2, 10, 6).setData_page_header_v2(new DataPageHeaderV2(3, 4, 3, Encoding.PLAIN, 1, 0));
        PageHeader tooLarge = new PageHeader(PageType.DATA_PAGE, (int) MAX_PAGE_BYTES + 1, 2).setData_page_header(new DataPageHeader(3, Encoding.PLAIN, Encoding.RLE,
                Encoding.RLE));
        for (DecodeKernels kernels : KERNELS.all()) {
            assertHostRefusal(kernels, lateDictionary, 3, v1.length, "a dictionary page after the chunk's first page");
            assertHostRefusal(kernels, pages(levelsPastPage, 6), 3, 0, "v2 levels of 2 + 5 bytes exceed the page's 6 stored bytes");
            assertHostRefusal(kernels, pages(moreNullsThanValues, 6), 3, 0, "a v2 page of 3 values with 4 nulls");
            assertHostRefusal(kernels, pages(tooLarge, 2), 3, 0, "uncompressed page size " + (MAX_PAGE_BYTES + 1) + " exceeds the limit");
            byte[] twoPages = new CompactBytes().raw(v1).raw(CompactBytes.v1Page(4, 1).bytes()).bytes();
            CorruptParquetException counts = assertThrows(CorruptParquetException.class, () -> walk(kernels, twoPages, 8));
            assertTrue(counts.getMessage().contains("column c: the data pages of the column chunk at file offset " + FILE_OFFSET + " hold 7 values, its metadata says 8"),
                    counts.getMessage());
            assertEquals(2, walk(kernels, twoPages, 7).pages().size());
        }
    }

    @Test
    void chunksWithMorePagesThanSlotsAreWalkedAgain()
            throws IOException
    {
        int many = DevicePageHeaders.INITIAL_SLOTS * 3 + 5;
        CompactBytes big = new CompactBytes();
        for (int page = 0; page < many; page++) {
            big.raw(CompactBytes.v1Page(1, page % 3).bytes());
        }
        byte[] manyPages = big.bytes();
        byte[] fewPages = new CompactBytes().raw(CompactBytes.v1Page(2, 1).bytes()).raw(CompactBytes.v1Page(5, 0).bytes()).bytes();
        for (DecodeKernels kernels : KERNELS.all()) {
            long manyAddress = upload(kernels, manyPages);
            long fewAddress = upload(kernels, fewPages);
            try {
                List<Walked> walked = DevicePageHeaders.walk(kernels, "f.parquet", List.of(new Chunk("few", 4, fewAddress, fewPages.length, 7),
                        new Chunk("many", 4000, manyAddress, manyPages.length, many), new Chunk("empty", 9000, 0, 0, 0)), MAX_PAGE_BYTES);
                assertEquals(ParquetMrPageHeaders.pages(fewPages), walked.get(0).pages());
                assertEquals(ParquetMrPageHeaders.pages(manyPages), walked.get(1).pages());
                assertEquals(List.of(), walked.get(2).pages());
                assertEquals(32 + 2L * PageHeaderSlots.SLOT_BYTES, walked.get(0).framingBytes(), "one launch: a status and two slots");
                assertEquals(2 * 32 + (long) many * PageHeaderSlots.SLOT_BYTES, walked.get(1).framingBytes(), "two launches: two statuses, each slot once");
                assertEquals(0, walked.get(2).framingBytes());
            }
            finally {
                kernels.free(manyAddress);
                kernels.free(fewAddress);
            }
        }
    }

    /**
     * Real headers (parquet-mr's writer: dictionary, v1 and v2 pages with statistics, an index page)
     * with one to three random bytes changed: the emulation and the CUDA C source give the same pages
     * or the same error, never another exception; pages they accept are the pages parquet-mr reads,
     * and what they refuse parquet-mr (or the walk's host checks on its reading) refuses too.
     */
    @Test
    void randomCorruptionGivesTheSameOutcomeOnEveryImplementation()
            throws IOException
    {
        PageHeader dictionary = new PageHeader(PageType.DICTIONARY_PAGE, 16, 16).setDictionary_page_header(new DictionaryPageHeader(4, Encoding.PLAIN));
        PageHeader v1 = new PageHeader(PageType.DATA_PAGE, 40, 12).setCrc(12345).setData_page_header(new DataPageHeader(10, Encoding.RLE_DICTIONARY, Encoding.RLE,
                Encoding.RLE).setStatistics(new Statistics().setNull_count(1).setDistinct_count(4).setMin_value(new byte[] {1, 2}).setMax_value(new byte[] {3, 4})));
        PageHeader index = new PageHeader(PageType.INDEX_PAGE, 3, 3).setIndex_page_header(new IndexPageHeader());
        PageHeader v2 = new PageHeader(PageType.DATA_PAGE_V2, 40, 14).setData_page_header_v2(new DataPageHeaderV2(6, 1, 6, Encoding.PLAIN, 2, 0)
                .setStatistics(new Statistics().setNull_count(1).setMin(new byte[] {5}).setMax(new byte[] {6})));
        byte[] original = pages(dictionary, 16, v1, 12, index, 3, v2, 14);
        Random random = new Random(18);
        int accepted = 0;
        int refused = 0;
        for (int round = 0; round < 400; round++) {
            byte[] chunk = original.clone();
            int changes = 1 + random.nextInt(3);
            for (int change = 0; change < changes; change++) {
                chunk[random.nextInt(chunk.length)] = (byte) (random.nextInt(4) == 0 ? random.nextInt(256) : chunk[random.nextInt(chunk.length)] ^ (1 << random.nextInt(8)));
            }
            String first = null;
            for (DecodeKernels kernels : KERNELS.all()) {
                String outcome;
                try {
                    List<PageDescriptor> walked = walk(kernels, chunk, 16).pages();
                    assertEquals(ParquetMrPageHeaders.pages(chunk), walked, "round " + round + ": pages the walk accepts are parquet-mr's");
                    outcome = walked.toString();
                }
                catch (CorruptParquetException e) {
                    outcome = e.getMessage();
                    ParquetMrPageHeaders.Outcome expected = ParquetMrPageHeaders.read(chunk, 16, MAX_PAGE_BYTES);
                    assertTrue(expected.pages().isEmpty(), "round " + round + ": the walk refuses what parquet-mr reads: " + outcome);
                }
                if (first == null) {
                    first = outcome;
                    if (outcome.startsWith("[")) {
                        accepted++;
                    }
                    else {
                        refused++;
                    }
                }
                else {
                    assertEquals(first, outcome, "round " + round + " on " + kernels.describe());
                }
            }
        }
        System.out.println("corrupted page headers: " + accepted + " accepted as parquet-mr reads them, " + refused + " refused, alike on " + KERNELS.all().size()
                + " implementation(s)");
        assertTrue(refused > 100 && accepted > 10, accepted + " accepted, " + refused + " refused");
    }

    private static byte[] pages(Object... headersAndBodyLengths)
            throws IOException
    {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < headersAndBodyLengths.length; i += 2) {
            Util.writePageHeader((PageHeader) headersAndBodyLengths[i], out);
            byte[] body = new byte[(Integer) headersAndBodyLengths[i + 1]];
            Arrays.fill(body, (byte) i);
            out.writeBytes(body);
        }
        return out.toByteArray();
    }

    private static long upload(DecodeKernels kernels, byte[] bytes)
    {
        long address = kernels.allocate(Math.max(1, bytes.length));
        kernels.upload(bytes, 0, bytes.length, address);
        return address;
    }

    private static Walked walk(DecodeKernels kernels, byte[] chunk, long valueCount)
    {
        long address = upload(kernels, chunk);
        try {
            return DevicePageHeaders.walk(kernels, "f.parquet", List.of(new Chunk("c", FILE_OFFSET, address, chunk.length, valueCount)), MAX_PAGE_BYTES).get(0);
        }
        finally {
            kernels.free(address);
        }
    }

    private static void assertCorrupt(DecodeKernels kernels, byte[] chunk, long valueCount, long headerAt, int code, long errorAt)
    {
        CorruptParquetException error = assertThrows(CorruptParquetException.class, () -> walk(kernels, chunk, valueCount), kernels.describe());
        String expected = "Malformed Parquet file f.parquet: column c: page header at file offset " + (FILE_OFFSET + headerAt) + ": " + PageHeaderSlots.describe(code)
                + " at file offset " + (FILE_OFFSET + errorAt);
        assertEquals(expected, error.getMessage(), kernels.describe());
    }

    private static void assertHostRefusal(DecodeKernels kernels, byte[] chunk, long valueCount, long headerAt, String what)
    {
        CorruptParquetException error = assertThrows(CorruptParquetException.class, () -> walk(kernels, chunk, valueCount), kernels.describe());
        assertTrue(error.getMessage().startsWith("Malformed Parquet file f.parquet: column c: page header at file offset " + (FILE_OFFSET + headerAt) + ": " + what),
                kernels.describe() + ": " + error.getMessage());
    }
}
