package dev.ferry.gds.decode;

import dev.ferry.gds.GdsConfigKeys;
import dev.ferry.gds.parquet.CorruptParquetException;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static java.util.Objects.requireNonNull;

/**
 * The pages of one column chunk as every decoder (the flat path's and parquet-mr's column readers)
 * sees them: each buffer has exactly its page's capacity (a decoder that slices to capacity, as
 * parquet-mr's dictionaries do, cannot see a pooled array's earlier page or the next page of a
 * fetched range), and every count a page header or its level and index runs claim is checked
 * against what the page's bytes hold before a decoder sizes an array from it: values against the
 * chunk's, the level runs and dictionary indexes, PLAIN widths, dictionary entries, and in all cases
 * against {@code maxPageBytes}. The checks run once per page, reading run headers, never per value.
 */
// BytesInput.toByteBuffer() is deprecated only for a variant with a releaser, which heap pages do not need.
@SuppressWarnings("deprecation")
final class CheckedPageReader
        implements PageReader
{
    private final PageReader pages;
    private final ColumnDescriptor descriptor;
    private final PageChecks checks;
    private final String column;
    private final long chunkOffset;
    private final long chunkSize;
    private final PrimitiveTypeName type;
    private final long totalValues;
    private long valuesSoFar;
    // The current data page (1-based; 0 before the first) and the chunk's values before it.
    private int pageNumber;
    private long valuesBeforePage;

    CheckedPageReader(PageReader pages, ColumnDescriptor descriptor, PageChecks checks, String column, long chunkOffset, long chunkSize)
    {
        this.pages = requireNonNull(pages, "pages is null");
        this.descriptor = requireNonNull(descriptor, "descriptor is null");
        this.checks = requireNonNull(checks, "checks is null");
        this.column = requireNonNull(column, "column is null");
        this.chunkOffset = chunkOffset;
        this.chunkSize = chunkSize;
        this.type = descriptor.getPrimitiveType().getPrimitiveTypeName();
        this.totalValues = pages.getTotalValueCount();
    }

    @Override
    public long getTotalValueCount()
    {
        return totalValues;
    }

    @Override
    public DictionaryPage readDictionaryPage()
    {
        DictionaryPage page = pages.readDictionaryPage();
        if (page == null) {
            return null;
        }
        ByteBuffer bytes = exact(page.getBytes());
        int size = page.getDictionarySize();
        if (size < 0) {
            throw corrupt("the dictionary page", "claims " + size + " entries");
        }
        if (page.getEncoding() == Encoding.PLAIN || page.getEncoding() == Encoding.PLAIN_DICTIONARY) {
            long needed = type == PrimitiveTypeName.BOOLEAN ? ((long) size + 7) / 8 : (long) size * plainWidth();
            if (needed > bytes.remaining()) {
                throw corrupt("the dictionary page", "claims " + size + " entries, which need at least " + needed + " bytes; the page has " + bytes.remaining());
            }
            if (type == PrimitiveTypeName.BINARY) {
                checkBinaryEntries(bytes.duplicate().order(ByteOrder.LITTLE_ENDIAN), size);
            }
        }
        else if ((long) size * Long.BYTES > checks.maxPageBytes()) {
            throw corrupt("the dictionary page", "claims " + size + " entries, more than a page of " + checks.maxPageBytes() + " bytes decodes to");
        }
        return new DictionaryPage(BytesInput.from(bytes), page.getUncompressedSize(), size, page.getEncoding());
    }

    @Override
    public DataPage readPage()
    {
        DataPage page = pages.readPage();
        if (page == null) {
            return null;
        }
        pageNumber++;
        valuesBeforePage = valuesSoFar;
        int values = page.getValueCount();
        if (values < 0 || values > totalValues - valuesSoFar) {
            throw corrupt(currentPage(), "claims " + values + " values; the column chunk has " + (totalValues - valuesSoFar) + " left of its " + totalValues);
        }
        valuesSoFar += values;
        DataPage checked;
        try {
            checked = page instanceof DataPageV1 ? v1((DataPageV1) page, values) : v2((DataPageV2) page, values);
        }
        catch (IllegalStateException | IndexOutOfBoundsException e) {
            throw corrupt(currentPage(), e.getMessage());
        }
        // Runs can hold up to 2^31-1 values in a few bytes; levels and indexes decode to an int each, so the page's arrays stay within the page bound.
        if ((long) values * Integer.BYTES > checks.maxPageBytes()) {
            throw corrupt(currentPage(), "claims " + values + " values, more than a page of " + checks.maxPageBytes() + " bytes decodes to (" + GdsConfigKeys.MAX_PAGE_BYTES.name() + ")");
        }
        return checked;
    }

    private DataPage v1(DataPageV1 page, int values)
    {
        ByteBuffer bytes = exact(page.getBytes());
        ByteBuffer cursor = bytes.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        levels(cursor, page.getRlEncoding(), descriptor.getMaxRepetitionLevel(), values, "repetition");
        levels(cursor, page.getDlEncoding(), descriptor.getMaxDefinitionLevel(), values, "definition");
        // Without definition levels every value is present; otherwise the levels say how many, which only decoding them tells.
        long present = descriptor.getMaxDefinitionLevel() == 0 ? values : -1;
        valuesSection(cursor, page.getValueEncoding(), values, present);
        BytesInput exact = BytesInput.from(bytes);
        return page.getFirstRowIndex().isPresent()
                ? new DataPageV1(exact, values, page.getUncompressedSize(), page.getFirstRowIndex().get(), page.getIndexRowCount().orElse(-1),
                        page.getStatistics(), page.getRlEncoding(), page.getDlEncoding(), page.getValueEncoding())
                : new DataPageV1(exact, values, page.getUncompressedSize(), page.getStatistics(), page.getRlEncoding(), page.getDlEncoding(),
                        page.getValueEncoding());
    }

    private DataPage v2(DataPageV2 page, int values)
    {
        int nulls = page.getNullCount();
        int rows = page.getRowCount();
        if (nulls < 0 || nulls > values || rows < 0 || rows > values) {
            throw new IllegalStateException("claims " + values + " values, " + nulls + " nulls and " + rows + " rows");
        }
        ByteBuffer repetition = exact(page.getRepetitionLevels());
        ByteBuffer definition = exact(page.getDefinitionLevels());
        ByteBuffer data = exact(page.getData());
        runs(repetition.duplicate(), descriptor.getMaxRepetitionLevel(), values, "repetition");
        runs(definition.duplicate(), descriptor.getMaxDefinitionLevel(), values, "definition");
        // num_nulls counts leaf nulls only for some writers (pyarrow leaves out empty and null lists), so the present values are known only without levels.
        valuesSection(data.duplicate().order(ByteOrder.LITTLE_ENDIAN), page.getDataEncoding(), values, descriptor.getMaxDefinitionLevel() == 0 ? values : -1);
        BytesInput rl = BytesInput.from(repetition);
        BytesInput dl = BytesInput.from(definition);
        BytesInput exact = BytesInput.from(data);
        return page.getFirstRowIndex().isPresent()
                ? DataPageV2.uncompressed(rows, nulls, values, page.getFirstRowIndex().get(), rl, dl, page.getDataEncoding(), exact, page.getStatistics())
                : DataPageV2.uncompressed(rows, nulls, values, rl, dl, page.getDataEncoding(), exact, page.getStatistics());
    }

    // A v1 page's levels: a 4-byte length and RLE runs, or (deprecated) one bit-packed run without a length; none when the maximum is 0.
    private static void levels(ByteBuffer cursor, Encoding encoding, int maxLevel, int values, String kind)
    {
        if (maxLevel == 0) {
            return;
        }
        int bitWidth = 32 - Integer.numberOfLeadingZeros(maxLevel);
        if (encoding == Encoding.BIT_PACKED) {
            long length = ((long) values * bitWidth + 7) / 8;
            if (length > cursor.remaining()) {
                throw new IllegalStateException("bit-packed " + kind + " levels need " + length + " bytes, the page has " + cursor.remaining());
            }
            cursor.position(cursor.position() + (int) length);
            return;
        }
        if (encoding != Encoding.RLE) {
            throw new IllegalStateException(kind + " levels encoded " + encoding);
        }
        if (cursor.remaining() < 4) {
            throw new IllegalStateException(kind + " levels' length cut off with " + cursor.remaining() + " bytes left");
        }
        int length = cursor.getInt();
        if (length < 0 || length > cursor.remaining()) {
            throw new IllegalStateException(kind + " levels of " + length + " bytes in a page with " + cursor.remaining() + " left");
        }
        ByteBuffer section = cursor.slice();
        section.limit(length);
        runs(section, maxLevel, values, kind);
        cursor.position(cursor.position() + length);
    }

    private static void runs(ByteBuffer section, int maxLevel, int values, String kind)
    {
        if (maxLevel == 0) {
            return;
        }
        int bitWidth = 32 - Integer.numberOfLeadingZeros(maxLevel);
        long covered = RleRunScan.covered(section, bitWidth, values);
        if (covered < values) {
            throw new IllegalStateException("claims " + values + " values; its " + kind + " levels hold " + covered);
        }
    }

    /** The values section: its counts against its bytes, where the encoding lets one tell without decoding ({@code present} -1: not known). */
    private void valuesSection(ByteBuffer data, Encoding encoding, int values, long present)
    {
        switch (encoding) {
            case PLAIN_DICTIONARY:
            case RLE_DICTIONARY: {
                if (!data.hasRemaining()) {
                    if (present > 0) {
                        throw new IllegalStateException("claims " + present + " dictionary-encoded values in an empty values section");
                    }
                    return;
                }
                int bitWidth = data.get() & 0xFF;
                long covered = RleRunScan.covered(data, bitWidth, values);
                if (present > 0 && covered < present) {
                    throw new IllegalStateException("claims " + present + " values; its dictionary indexes hold " + covered);
                }
                return;
            }
            case PLAIN: {
                if (present < 0) {
                    return;
                }
                long needed = type == PrimitiveTypeName.BOOLEAN ? (present + 7) / 8 : present * plainWidth();
                if (needed > data.remaining()) {
                    throw new IllegalStateException("claims " + present + " PLAIN values, which need at least " + needed + " bytes; the page has " + data.remaining());
                }
                return;
            }
            case DELTA_BINARY_PACKED:
            case DELTA_LENGTH_BYTE_ARRAY:
            case DELTA_BYTE_ARRAY:
                DeltaHeaders.check(encoding, data, values, checks.maxPageBytes());
                return;
            default:
                // BYTE_STREAM_SPLIT sizes nothing from a count; RLE booleans are scanned by the flat path's decoder within the page.
        }
    }

    private void checkBinaryEntries(ByteBuffer bytes, int size)
    {
        for (int id = 0; id < size; id++) {
            if (bytes.remaining() < 4) {
                throw corrupt("the dictionary page", "entry " + id + " of " + size + " is cut off with " + bytes.remaining() + " bytes left in the page");
            }
            int length = bytes.getInt();
            if (length < 0 || length > bytes.remaining()) {
                throw corrupt("the dictionary page", "dictionary entry of length " + length + " (entry " + id + " of " + size + ") with " + bytes.remaining()
                        + " bytes left in the page");
            }
            bytes.position(bytes.position() + length);
        }
    }

    // The fewest bytes one PLAIN value takes: BINARY its 4-byte length.
    private int plainWidth()
    {
        switch (type) {
            case INT32:
            case FLOAT:
            case BINARY:
                return 4;
            case INT64:
            case DOUBLE:
                return 8;
            case INT96:
                return 12;
            case FIXED_LEN_BYTE_ARRAY:
                return Math.max(1, descriptor.getPrimitiveType().getTypeLength());
            default:
                return 1;
        }
    }

    // A page's bytes as a buffer whose capacity is the page's size, sharing its array where it has one.
    private static ByteBuffer exact(BytesInput input)
    {
        ByteBuffer buffer;
        try {
            buffer = input.toByteBuffer();
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot read a page", e);
        }
        return buffer.slice();
    }

    private CorruptParquetException corrupt(String page, String detail)
    {
        return new CorruptParquetException(checks.file(), "column " + column + ", " + page + " of the column chunk at offset " + chunkOffset + ": " + detail);
    }

    /** Where the decoders are in this chunk, for an error raised while decoding it (the offset is looked up only now). */
    String position()
    {
        return "column " + column + ", " + (pageNumber == 0 ? "before its first data page" : currentPage()) + " of the column chunk at offset " + chunkOffset;
    }

    private String currentPage()
    {
        long offset = checks.dataPageOffset(chunkOffset, chunkSize, pageNumber);
        return "data page " + pageNumber + (offset < 0 ? "" : " at offset " + offset) + " (from value " + valuesBeforePage + ")";
    }
}
