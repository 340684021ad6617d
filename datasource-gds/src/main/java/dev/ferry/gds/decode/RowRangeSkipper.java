package dev.ferry.gds.decode;

import org.apache.parquet.column.page.DataPage;

/**
 * Page-index skipping within a row group: the rows to read as inclusive [from, to] ranges,
 * ascending. Pages outside the ranges never arrive; pages that straddle a range edge do, so this
 * says which of their rows to pass over, and every column of the row group yields the same rows.
 * Without ranges every row is read.
 */
final class RowRangeSkipper
{
    private long[] rangeFrom;
    private long[] rangeTo;
    private int rangeIndex;
    // The row group's row index of the current page's first row.
    private long pageFirstRow;

    /** Starts a row group; null ranges read every row. */
    void start(long[] from, long[] to)
    {
        this.rangeFrom = from;
        this.rangeTo = to;
        this.rangeIndex = 0;
    }

    boolean active()
    {
        return rangeFrom != null;
    }

    /** Notes where {@code page} starts; a page of a row group read by ranges must say. */
    void pageStarts(DataPage page)
    {
        if (rangeFrom == null) {
            return;
        }
        if (page.getFirstRowIndex().isEmpty()) {
            throw new IllegalStateException("a page of a row group read by row ranges has no first row index");
        }
        pageFirstRow = page.getFirstRowIndex().get();
    }

    /**
     * How many rows from {@code pageCursor} (of {@code pageLeft} left in the page) lie before the
     * next range and must be skipped; 0 when the row at the cursor is in a range.
     */
    int rowsToSkip(int pageCursor, int pageLeft)
    {
        long row = pageFirstRow + pageCursor;
        while (rangeIndex < rangeFrom.length && rangeTo[rangeIndex] < row) {
            rangeIndex++;
        }
        if (rangeIndex < rangeFrom.length && row >= rangeFrom[rangeIndex]) {
            return 0;
        }
        long until = rangeIndex == rangeFrom.length ? Long.MAX_VALUE : rangeFrom[rangeIndex];
        return (int) Math.min(pageLeft, until - row);
    }

    /** {@code count} rows from {@code pageCursor} capped at the end of the range the cursor is in. */
    int inRange(int pageCursor, int count)
    {
        long row = pageFirstRow + pageCursor;
        return (int) Math.min(count, rangeTo[rangeIndex] - row + 1);
    }
}
