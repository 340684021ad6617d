package dev.ferry.gds.parquet;

import java.io.Serializable;

/**
 * The rows {@code [from, to)} of one row group that one task reads, when a row group larger than
 * the split target is read by several tasks. The planner cuts at even row counts; the reader moves
 * each cut to the start of the page of the row group's largest column that holds it
 * ({@code read.RowSpanRanges}), the same move in every task, so adjacent spans still meet.
 */
public record RowSpan(long from, long to)
        implements Serializable
{
    public RowSpan
    {
        if (from < 0 || to <= from) {
            throw new IllegalArgumentException("Bad row span [" + from + ", " + to + ")");
        }
    }

    public long rows()
    {
        return to - from;
    }

    @Override
    public String toString()
    {
        return "rows [" + from + ", " + to + ")";
    }
}
