package dev.ferry.gds.decode.cuda;

import dev.ferry.gds.decode.cuda.PageDescriptor.PageType;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.format.DataPageHeader;
import org.apache.parquet.format.DataPageHeaderV2;
import org.apache.parquet.format.DictionaryPageHeader;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.Util;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The expected side of the device walk's tests: a chunk's page headers as parquet-mr's Thrift code
 * reads them ({@link Util#readPageHeader}), one after another until the chunk's bytes are used, in
 * {@link PageDescriptor}'s form, with the checks {@link DevicePageHeaders} makes on top of the parse.
 */
final class ParquetMrPageHeaders
{
    /** The pages, or why parquet-mr (or the walk's checks on what it read) refuses the chunk. */
    record Outcome(Optional<List<PageDescriptor>> pages, String refusal) {}

    private ParquetMrPageHeaders() {}

    static Outcome read(byte[] chunk, long valueCount, long maxPageBytes)
    {
        if (valueCount == 0) {
            // parquet-mr's reader stops once the chunk's values are read: here before its first page.
            return new Outcome(Optional.of(List.of()), "");
        }
        try {
            List<PageDescriptor> pages = pages(chunk);
            long values = 0;
            for (PageDescriptor page : pages) {
                if (page.uncompressedSize() > maxPageBytes) {
                    return refused("page " + page.index() + " is larger than " + maxPageBytes);
                }
                if (page.type() == PageType.DICTIONARY && page.index() != 0) {
                    return refused("dictionary page " + page.index() + " is not first");
                }
                if (page.type() == PageType.DATA_V2 && ((long) page.definitionLevelsLength() + page.repetitionLevelsLength() > page.compressedSize()
                        || page.nullCount() > page.valueCount())) {
                    return refused("v2 page " + page.index() + " levels or nulls");
                }
                if (page.type() != PageType.DICTIONARY) {
                    values += page.valueCount();
                }
            }
            if (values != valueCount) {
                return refused(values + " values, not " + valueCount);
            }
            return new Outcome(Optional.of(pages), "");
        }
        catch (IOException | RuntimeException e) {
            return refused(e.toString());
        }
    }

    private static Outcome refused(String why)
    {
        return new Outcome(Optional.empty(), why);
    }

    /** The pages parquet-mr parses from {@code chunk} (index pages left out); throws where it cannot. */
    static List<PageDescriptor> pages(byte[] chunk)
            throws IOException
    {
        ByteArrayInputStream in = new ByteArrayInputStream(chunk);
        List<PageDescriptor> pages = new ArrayList<>();
        while (in.available() > 0) {
            long headerAt = chunk.length - in.available();
            PageHeader header = Util.readPageHeader(in);
            long bodyAt = chunk.length - in.available();
            int stored = header.getCompressed_page_size();
            int size = header.getUncompressed_page_size();
            if (stored < 0 || size < 0 || stored > in.available()) {
                throw new IOException("page body of " + stored + " bytes at " + bodyAt + " does not fit the chunk");
            }
            in.skipNBytes(stored);
            int index = pages.size();
            switch (header.getType()) {
                case INDEX_PAGE -> {
                    // Skipped, as the walk skips them.
                }
                case DATA_PAGE -> {
                    DataPageHeader v1 = header.getData_page_header();
                    if (v1.getNum_values() < 0) {
                        throw new IOException("negative value count");
                    }
                    pages.add(new PageDescriptor(index, PageType.DATA_V1, headerAt, bodyAt, stored, size, v1.getNum_values(), encoding(v1.getEncoding()),
                            encoding(v1.getDefinition_level_encoding()), encoding(v1.getRepetition_level_encoding()), -1, -1, -1, -1, true, header.isSetCrc()));
                }
                case DICTIONARY_PAGE -> {
                    DictionaryPageHeader dictionary = header.getDictionary_page_header();
                    if (dictionary.getNum_values() < 0) {
                        throw new IOException("negative value count");
                    }
                    pages.add(new PageDescriptor(index, PageType.DICTIONARY, headerAt, bodyAt, stored, size, dictionary.getNum_values(),
                            encoding(dictionary.getEncoding()), null, null, -1, -1, -1, -1, true, header.isSetCrc()));
                }
                case DATA_PAGE_V2 -> {
                    DataPageHeaderV2 v2 = header.getData_page_header_v2();
                    if (v2.getNum_values() < 0 || v2.getNum_nulls() < 0 || v2.getNum_rows() < 0 || v2.getDefinition_levels_byte_length() < 0
                            || v2.getRepetition_levels_byte_length() < 0) {
                        throw new IOException("negative v2 count or length");
                    }
                    pages.add(new PageDescriptor(index, PageType.DATA_V2, headerAt, bodyAt, stored, size, v2.getNum_values(), encoding(v2.getEncoding()), null,
                            null, v2.getDefinition_levels_byte_length(), v2.getRepetition_levels_byte_length(), v2.getNum_nulls(), v2.getNum_rows(),
                            !v2.isSetIs_compressed() || v2.isIs_compressed(), header.isSetCrc()));
                }
            }
        }
        return pages;
    }

    private static Encoding encoding(org.apache.parquet.format.Encoding encoding)
    {
        return Encoding.valueOf(encoding.name());
    }
}
