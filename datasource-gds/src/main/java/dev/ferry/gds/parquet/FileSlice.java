package dev.ferry.gds.parquet;

import org.apache.parquet.filter2.predicate.FilterPredicate;

import java.io.Serializable;
import java.util.Arrays;

import static java.util.Objects.requireNonNull;

/**
 * Some row groups of one file, read by one task: whole, or for a row group split over several tasks,
 * one {@link RowSpan} of its rows.
 *
 * @param rowGroups indexes into the footer's row groups, ascending
 * @param bytes compressed bytes of those row groups (of a split row group, this span's share)
 * @param rows rows in those row groups (of a split row group, the span's rows)
 * @param pageFilter the pushed filters as parquet-mr translated them for this file, for page-index skipping; null for none
 * @param rowSpans one entry per row group: the rows of it this task reads, or null for all of them
 */
public record FileSlice(SourceFile file, int[] rowGroups, long bytes, long rows, FilterPredicate pageFilter, RowSpan[] rowSpans)
        implements Serializable
{
    public FileSlice
    {
        requireNonNull(file, "file is null");
        rowGroups = requireNonNull(rowGroups, "rowGroups is null").clone();
        rowSpans = requireNonNull(rowSpans, "rowSpans is null").clone();
        if (rowSpans.length != rowGroups.length) {
            throw new IllegalArgumentException(file.path() + ": " + rowSpans.length + " row spans for " + rowGroups.length + " row groups");
        }
    }

    /** Whole row groups. */
    public FileSlice(SourceFile file, int[] rowGroups, long bytes, long rows, FilterPredicate pageFilter)
    {
        this(file, rowGroups, bytes, rows, pageFilter, new RowSpan[rowGroups.length]);
    }

    /** Whole row groups, read without page-index skipping. */
    public FileSlice(SourceFile file, int[] rowGroups, long bytes, long rows)
    {
        this(file, rowGroups, bytes, rows, null);
    }

    @Override
    public int[] rowGroups()
    {
        return rowGroups.clone();
    }

    @Override
    public RowSpan[] rowSpans()
    {
        return rowSpans.clone();
    }

    /** Whether this slice reads part of a row group. */
    public boolean hasRowSpans()
    {
        return Arrays.stream(rowSpans).anyMatch(span -> span != null);
    }

    /** Row groups whose first row this slice reads: a row group split over several slices counts in one of them only. */
    public int rowGroupsStartedHere()
    {
        return (int) Arrays.stream(rowSpans).filter(span -> span == null || span.from() == 0).count();
    }

    @Override
    public String toString()
    {
        return file.path() + " row groups " + Arrays.toString(rowGroups) + (hasRowSpans() ? " " + Arrays.toString(rowSpans) : "");
    }
}
