package dev.ferry.gds.plan;

import dev.ferry.gds.parquet.FileSlice;
import dev.ferry.gds.parquet.RowSpan;
import org.apache.parquet.filter2.predicate.FilterPredicate;
import org.apache.parquet.hadoop.metadata.BlockMetaData;


import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import static java.util.Objects.requireNonNull;

/**
 * Packs row groups into splits the way Spark packs file ranges ({@code FilePartition}): a split
 * target of {@code min(maxPartitionBytes, max(openCostInBytes, bytes per core))}, every unit charged
 * {@code openCostInBytes} extra, largest units first, next fit. The units here are runs of
 * consecutive row groups of one file, and where one row group is larger than the split target
 * (fewer row groups than the target asks for, such as one 66 MB row group on two cores), that row
 * group cut into {@code ceil(bytes / target)} row spans of even row counts, one unit each, when
 * {@link RowGroupSplitting} allows it; a large row group it refuses is kept whole and counted by reason.
 */
public final class SplitPlanner
{
    private final long maxPartitionBytes;
    private final long openCostInBytes;
    private final int minPartitions;
    private final RowGroupSplitting splitting;

    /** A planner that never splits a row group. */
    public SplitPlanner(long maxPartitionBytes, long openCostInBytes, int minPartitions)
    {
        this(maxPartitionBytes, openCostInBytes, minPartitions, RowGroupSplitting.off("not asked for"));
    }

    public SplitPlanner(long maxPartitionBytes, long openCostInBytes, int minPartitions, RowGroupSplitting splitting)
    {
        if (maxPartitionBytes <= 0 || openCostInBytes < 0 || minPartitions <= 0) {
            throw new IllegalArgumentException("Bad split settings: maxPartitionBytes=" + maxPartitionBytes + ", openCostInBytes=" + openCostInBytes
                    + ", minPartitions=" + minPartitions);
        }
        this.maxPartitionBytes = maxPartitionBytes;
        this.openCostInBytes = openCostInBytes;
        this.minPartitions = minPartitions;
        this.splitting = requireNonNull(splitting, "splitting is null");
    }

    public SplitPlan plan(List<PlannedFile> files, PartitionPruner partitions, RowGroupPruner pruner)
    {
        requireNonNull(files, "files is null");
        long filesPruned = 0;
        long total = 0;
        long skipped = 0;
        List<Selected> selected = new ArrayList<>();
        long totalBytes = 0;
        for (PlannedFile file : files) {
            if (!partitions.mayMatch(file.file().partitionValues())) {
                filesPruned++;
                continue;
            }
            List<BlockMetaData> blocks = file.footer().getBlocks();
            total += blocks.size();
            int[] kept = pruner.select(file.footer(), file.file().path());
            skipped += blocks.size() - kept.length;
            selected.add(new Selected(file, kept, kept.length == 0 ? null : pruner.pageFilter(file.footer(), file.file().path()).orElse(null)));
            for (int index : kept) {
                totalBytes += blocks.get(index).getCompressedSize();
            }
            totalBytes += openCostInBytes;
        }
        long bytesPerCore = totalBytes / minPartitions;
        long maxSplitBytes = Math.min(maxPartitionBytes, Math.max(openCostInBytes, bytesPerCore));

        List<FileSlice> units = new ArrayList<>();
        Splits splits = new Splits();
        for (Selected file : selected) {
            units.addAll(runs(file, maxSplitBytes, splitting, splits));
        }
        units.sort(Comparator.comparingLong(FileSlice::bytes).reversed());

        List<List<FileSlice>> grouped = new ArrayList<>();
        List<FileSlice> current = new ArrayList<>();
        long currentSize = 0;
        long bytes = 0;
        long rows = 0;
        for (FileSlice unit : units) {
            if (!current.isEmpty() && currentSize + unit.bytes() > maxSplitBytes) {
                grouped.add(current);
                current = new ArrayList<>();
                currentSize = 0;
            }
            current.add(unit);
            currentSize += unit.bytes() + openCostInBytes;
            bytes += unit.bytes();
            rows += unit.rows();
        }
        if (!current.isEmpty()) {
            grouped.add(current);
        }
        return new SplitPlan(grouped, total, skipped, bytes, rows, filesPruned, splits.rowGroupsSplit, splits.spans, splits.keptWhole);
    }

    private static List<FileSlice> runs(Selected file, long maxSplitBytes, RowGroupSplitting splitting, Splits splits)
    {
        List<BlockMetaData> blocks = file.file().footer().getBlocks();
        List<FileSlice> runs = new ArrayList<>();
        List<Integer> run = new ArrayList<>();
        long runBytes = 0;
        long runRows = 0;
        int previous = -2;
        for (int index : file.rowGroups()) {
            BlockMetaData block = blocks.get(index);
            if (block.getRowCount() == 0) {
                continue;
            }
            long blockBytes = block.getCompressedSize();
            if (blockBytes > maxSplitBytes && block.getRowCount() > 1) {
                Optional<String> refusal = splitting.refusal(block);
                if (refusal.isEmpty()) {
                    if (!run.isEmpty()) {
                        runs.add(slice(file, run, runBytes, runRows));
                        run = new ArrayList<>();
                        runBytes = 0;
                        runRows = 0;
                    }
                    List<FileSlice> spans = spans(file, index, block, maxSplitBytes);
                    splits.rowGroupsSplit++;
                    splits.spans += spans.size();
                    runs.addAll(spans);
                    previous = -2;
                    continue;
                }
                splits.keptWhole.merge(refusal.get(), 1L, Long::sum);
            }
            boolean contiguous = index == previous + 1;
            if (!run.isEmpty() && (!contiguous || runBytes + blockBytes > maxSplitBytes)) {
                runs.add(slice(file, run, runBytes, runRows));
                run = new ArrayList<>();
                runBytes = 0;
                runRows = 0;
            }
            run.add(index);
            runBytes += blockBytes;
            runRows += block.getRowCount();
            previous = index;
        }
        if (!run.isEmpty()) {
            runs.add(slice(file, run, runBytes, runRows));
        }
        return runs;
    }

    /**
     * Row group {@code index} cut into {@code ceil(bytes / maxSplitBytes)} spans of even row counts
     * (at most one per row), each charged its share of the row group's bytes. The cuts add up to the
     * row group exactly: the row-count answer of {@code count(*)} adds the spans' rows.
     */
    private static List<FileSlice> spans(Selected file, int index, BlockMetaData block, long maxSplitBytes)
    {
        long rowCount = block.getRowCount();
        long bytes = block.getCompressedSize();
        long count = Math.min(rowCount, (bytes + maxSplitBytes - 1) / maxSplitBytes);
        List<FileSlice> spans = new ArrayList<>();
        for (long part = 0; part < count; part++) {
            long from = rowCount * part / count;
            long to = rowCount * (part + 1) / count;
            long spanBytes = bytes * (part + 1) / count - bytes * part / count;
            spans.add(new FileSlice(file.file().file(), new int[] {index}, spanBytes, to - from, file.pageFilter(), new RowSpan[] {new RowSpan(from, to)}));
        }
        return spans;
    }

    private static FileSlice slice(Selected file, List<Integer> rowGroups, long bytes, long rows)
    {
        return new FileSlice(file.file().file(), rowGroups.stream().mapToInt(Integer::intValue).toArray(), bytes, rows, file.pageFilter());
    }

    private record Selected(PlannedFile file, int[] rowGroups, FilterPredicate pageFilter) {}

    // What splitting did while the units were cut.
    private static final class Splits
    {
        long rowGroupsSplit;
        long spans;
        final Map<String, Long> keptWhole = new TreeMap<>();
    }
}
