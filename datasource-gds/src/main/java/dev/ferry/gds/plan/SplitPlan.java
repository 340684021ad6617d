package dev.ferry.gds.plan;

import dev.ferry.gds.parquet.FileSlice;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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
 * @param rowGroupsSplit row groups larger than the split target cut into row spans
 * @param rowSpans the spans they were cut into
 * @param rowGroupsKeptWhole row groups larger than the split target read whole, by the reason they were not split
 */
public record SplitPlan(List<List<FileSlice>> partitions, long rowGroupsTotal, long rowGroupsSkipped, long bytes, long rows, long filesPruned,
        long rowGroupsSplit, long rowSpans, Map<String, Long> rowGroupsKeptWhole)
{
    public SplitPlan
    {
        partitions = List.copyOf(requireNonNull(partitions, "partitions is null"));
        rowGroupsKeptWhole = Map.copyOf(requireNonNull(rowGroupsKeptWhole, "rowGroupsKeptWhole is null"));
    }

    /** The splitting part of the explain string: {@code rowGroupsSplit=1 (into 2 row ranges)}, and the large row groups read whole and why. */
    public String describeSplitting()
    {
        StringBuilder text = new StringBuilder();
        text.append(" rowGroupsSplit=").append(rowGroupsSplit);
        if (rowGroupsSplit > 0) {
            text.append(" (into ").append(rowSpans).append(" row ranges)");
        }
        if (!rowGroupsKeptWhole.isEmpty()) {
            text.append(" largeRowGroupsReadWhole=").append(new TreeMap<>(rowGroupsKeptWhole));
        }
        return text.toString();
    }
}
