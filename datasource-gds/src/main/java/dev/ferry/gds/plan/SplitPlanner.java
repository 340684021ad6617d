package dev.ferry.gds.plan;

import dev.ferry.gds.parquet.FileSlice;
import org.apache.parquet.filter2.predicate.FilterPredicate;
import org.apache.parquet.hadoop.metadata.BlockMetaData;


import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Packs row groups into splits the way Spark packs file ranges ({@code FilePartition}): a split
 * target of {@code min(maxPartitionBytes, max(openCostInBytes, bytes per core))}, every unit charged
 * {@code openCostInBytes} extra, largest units first, next fit. The units here are runs of
 * consecutive row groups of one file, never part of a row group.
 */
public final class SplitPlanner
{
    private final long maxPartitionBytes;
    private final long openCostInBytes;
    private final int minPartitions;

    public SplitPlanner(long maxPartitionBytes, long openCostInBytes, int minPartitions)
    {
        if (maxPartitionBytes <= 0 || openCostInBytes < 0 || minPartitions <= 0) {
            throw new IllegalArgumentException("Bad split settings: maxPartitionBytes=" + maxPartitionBytes + ", openCostInBytes=" + openCostInBytes
                    + ", minPartitions=" + minPartitions);
        }
        this.maxPartitionBytes = maxPartitionBytes;
        this.openCostInBytes = openCostInBytes;
        this.minPartitions = minPartitions;
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
        for (Selected file : selected) {
            units.addAll(runs(file, maxSplitBytes));
        }
        units.sort(Comparator.comparingLong(FileSlice::bytes).reversed());

        List<List<FileSlice>> splits = new ArrayList<>();
        List<FileSlice> current = new ArrayList<>();
        long currentSize = 0;
        long bytes = 0;
        long rows = 0;
        for (FileSlice unit : units) {
            if (!current.isEmpty() && currentSize + unit.bytes() > maxSplitBytes) {
                splits.add(current);
                current = new ArrayList<>();
                currentSize = 0;
            }
            current.add(unit);
            currentSize += unit.bytes() + openCostInBytes;
            bytes += unit.bytes();
            rows += unit.rows();
        }
        if (!current.isEmpty()) {
            splits.add(current);
        }
        return new SplitPlan(splits, total, skipped, bytes, rows, filesPruned);
    }

    private static List<FileSlice> runs(Selected file, long maxSplitBytes)
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

    private static FileSlice slice(Selected file, List<Integer> rowGroups, long bytes, long rows)
    {
        return new FileSlice(file.file().file(), rowGroups.stream().mapToInt(Integer::intValue).toArray(), bytes, rows, file.pageFilter());
    }

    private record Selected(PlannedFile file, int[] rowGroups, FilterPredicate pageFilter) {}
}
