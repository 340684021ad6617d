package dev.ferry.gds.decode;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;

import java.util.Optional;
import java.util.PrimitiveIterator;

import static java.util.Objects.requireNonNull;

/**
 * A row group's pages where one column's page reader is replaced and every other column, the row
 * count and the row indexes come from the row group's own store. Both ways a decoder hands one
 * chunk's pages to the CPU decoder other than straight from the file ({@link ReplayedPages},
 * {@link UploadedPages}) are this, so the pass-through is written once.
 */
abstract class OneColumnReplacedPages
        implements PageReadStore
{
    protected final PageReadStore store;
    protected final ColumnDescriptor column;

    OneColumnReplacedPages(PageReadStore store, ColumnDescriptor column)
    {
        this.store = requireNonNull(store, "store is null");
        this.column = requireNonNull(column, "column is null");
    }

    /** The replaced column's pages; asked once per {@link #getPageReader} call for that column. */
    abstract PageReader columnPages();

    @Override
    public final PageReader getPageReader(ColumnDescriptor descriptor)
    {
        if (!descriptor.equals(column)) {
            return store.getPageReader(descriptor);
        }
        return columnPages();
    }

    @Override
    public final long getRowCount()
    {
        return store.getRowCount();
    }

    @Override
    public final Optional<Long> getRowIndexOffset()
    {
        return store.getRowIndexOffset();
    }

    @Override
    public final Optional<PrimitiveIterator.OfLong> getRowIndexes()
    {
        return store.getRowIndexes();
    }
}
