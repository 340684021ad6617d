package dev.ferry.gds.plan;

import java.io.Serializable;
import java.util.Arrays;

import static java.util.Objects.requireNonNull;

/**
 * Some row groups of one file, read by one task.
 *
 * @param rowGroups indexes into the footer's row groups, ascending
 * @param bytes compressed bytes of those row groups
 * @param rows rows in those row groups
 */
public record FileSlice(SourceFile file, int[] rowGroups, long bytes, long rows)
        implements Serializable
{
    public FileSlice
    {
        requireNonNull(file, "file is null");
        rowGroups = requireNonNull(rowGroups, "rowGroups is null").clone();
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
