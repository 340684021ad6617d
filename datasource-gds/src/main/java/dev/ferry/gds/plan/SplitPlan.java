package dev.ferry.gds.plan;

import dev.ferry.gds.parquet.FileSlice;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The splits of a scan and what planning learned.
 *
 * @param partitions the slices each task reads
 * @param rowGroupsTotal row groups in all files
 * @param rowGroupsSkipped row groups pruned by statistics
 * @param bytes compressed bytes the tasks will read
 * @param rows rows the tasks will read
 * @param filesPruned files skipped because their partition values fail a pushed filter
 */
public record SplitPlan(List<List<FileSlice>> partitions, long rowGroupsTotal, long rowGroupsSkipped, long bytes, long rows, long filesPruned)
{
    public SplitPlan
    {
        partitions = List.copyOf(requireNonNull(partitions, "partitions is null"));
    }
}
