package dev.ferry.gds.parquet;

import org.apache.parquet.filter2.predicate.FilterPredicate;

import java.io.Serializable;
import java.util.Arrays;

import static java.util.Objects.requireNonNull;

/**
 * Some row groups of one file, read by one task.
 *
 * @param rowGroups indexes into the footer's row groups, ascending
 * @param bytes compressed bytes of those row groups
 * @param rows rows in those row groups
 * @param pageFilter the pushed filters as parquet-mr translated them for this file, for page-index skipping; null for none
 */
public record FileSlice(SourceFile file, int[] rowGroups, long bytes, long rows, FilterPredicate pageFilter)
        implements Serializable
{
    public FileSlice
    {
        requireNonNull(file, "file is null");
        rowGroups = requireNonNull(rowGroups, "rowGroups is null").clone();
    }

    /** A slice read without page-index skipping. */
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
    public String toString()
    {
        return file.path() + " row groups " + Arrays.toString(rowGroups);
    }
}
