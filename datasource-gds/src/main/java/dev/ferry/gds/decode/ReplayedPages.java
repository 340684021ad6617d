package dev.ferry.gds.decode;

import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Supplier;

/**
 * A row group's pages where one column's pages were already read (by the device decoder, which
 * looked at them and refused the chunk): that column's copied pages are replayed to the CPU decoder
 * in order, every other column reads the row group's own store. The copies own their bytes, so
 * page arrays the reader recycles afterwards cannot change them.
 */
final class ReplayedPages
        extends OneColumnReplacedPages
{
    private final DictionaryPage dictionary;
    private final List<Supplier<DataPage>> pages;
    private final long valueCount;

    /** Pages already copied ({@link #copy(DataPage)}), replayed as they are. */
    static ReplayedPages of(PageReadStore store, ColumnDescriptor column, DictionaryPage dictionary, List<DataPage> pages, long valueCount)
    {
        return new ReplayedPages(store, column, dictionary, pages.stream().<Supplier<DataPage>>map(page -> () -> page).toList(), valueCount);
    }

    /**
     * Pages made when the CPU decoder asks for each, in order (a given-back chunk's bodies decompressed one at a time, as
     * parquet-mr's own page reader does, so the chunk's decoded size is never held at once).
     */
    static ReplayedPages lazy(PageReadStore store, ColumnDescriptor column, DictionaryPage dictionary, List<Supplier<DataPage>> pages, long valueCount)
    {
        return new ReplayedPages(store, column, dictionary, pages, valueCount);
    }

    private ReplayedPages(PageReadStore store, ColumnDescriptor column, DictionaryPage dictionary, List<Supplier<DataPage>> pages, long valueCount)
    {
        super(store, column);
        this.dictionary = dictionary;
        this.pages = List.copyOf(pages);
        this.valueCount = valueCount;
    }

    /** A page whose bytes are copied out of the reader's buffers. */
    static DataPage copy(DataPage page)
    {
        try {
            if (page instanceof DataPageV1 v1) {
                return new DataPageV1(BytesInput.from(v1.getBytes().toByteArray()), v1.getValueCount(), v1.getUncompressedSize(), v1.getStatistics(),
                        v1.getRlEncoding(), v1.getDlEncoding(), v1.getValueEncoding());
            }
            if (page instanceof DataPageV2 v2 && !v2.isCompressed()) {
                return DataPageV2.uncompressed(v2.getRowCount(), v2.getNullCount(), v2.getValueCount(), BytesInput.from(v2.getRepetitionLevels().toByteArray()),
                        BytesInput.from(v2.getDefinitionLevels().toByteArray()), v2.getDataEncoding(), BytesInput.from(v2.getData().toByteArray()),
                        v2.getStatistics());
            }
            throw new IllegalStateException("cannot copy a " + page);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static DictionaryPage copy(DictionaryPage page)
    {
        if (page == null) {
            return null;
        }
        try {
            return new DictionaryPage(BytesInput.from(page.getBytes().toByteArray()), page.getUncompressedSize(), page.getDictionarySize(), page.getEncoding());
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    PageReader columnPages()
    {
        Deque<Supplier<DataPage>> left = new ArrayDeque<>(new ArrayList<>(pages));
        return new PageReader()
        {
            @Override
            public DictionaryPage readDictionaryPage()
            {
                return dictionary;
            }

            @Override
            public long getTotalValueCount()
            {
                return valueCount;
            }

            @Override
            public DataPage readPage()
            {
                Supplier<DataPage> next = left.pollFirst();
                return next == null ? null : next.get();
            }
        };
    }
}
