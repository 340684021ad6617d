package dev.ferry.gds.plan;

import dev.ferry.gds.GdsReadSettings;
import dev.ferry.gds.GdsRouteSetting;
import dev.ferry.gds.parquet.FileSlice;
import dev.ferry.gds.parquet.SourceFile;
import dev.ferry.topology.route.FileConsumer;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.statistics.IntStatistics;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.FileMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.internal.SQLConf;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SplitPlannerTest
{
    private static final MessageType SCHEMA = Types.buildMessage().required(PrimitiveType.PrimitiveTypeName.INT32).named("x").named("test");
    private static final long MB = 1 << 20;

    @Test
    void largeFilesSplitAtRowGroupsAndSmallOnesShareASplit()
    {
        List<PlannedFile> files = List.of(
                file("big", 40 * MB, 40 * MB, 40 * MB),
                file("small-1", MB),
                file("small-2", MB),
                file("empty-row-group", 0));
        SplitPlan plan = new SplitPlanner(64 * MB, 4 * MB, 1).plan(files, PartitionPruner.none(), noFilters());
        assertEquals(6, plan.rowGroupsTotal());
        assertEquals(0, plan.rowGroupsSkipped());
        // Largest first, next fit, each unit charged 4 MB to open: no two 40 MB row groups fit in 64 MB, the small files join the last.
        List<String> splits = new ArrayList<>();
        for (List<FileSlice> split : plan.partitions()) {
            splits.add(split.stream().map(slice -> slice.file().path() + Arrays.toString(slice.rowGroups())).toList().toString());
        }
        assertEquals(List.of("[big[0]]", "[big[1]]", "[big[2], small-1[0], small-2[0]]"), splits);
        assertEquals(122 * MB, plan.bytes());
    }

    @Test
    void fewBytesSpreadOverTheMinimumPartitions()
    {
        List<PlannedFile> files = List.of(file("a", 8 * MB, 8 * MB, 8 * MB, 8 * MB));
        SplitPlan one = new SplitPlanner(128 * MB, 4 * MB, 1).plan(files, PartitionPruner.none(), noFilters());
        SplitPlan four = new SplitPlanner(128 * MB, 4 * MB, 4).plan(files, PartitionPruner.none(), noFilters());
        assertEquals(1, one.partitions().size());
        assertTrue(four.partitions().size() >= 3, "bytes per core caps the split: " + four.partitions().size());
        assertEquals(Set.of(0, 1, 2, 3), four.partitions().stream().flatMap(List::stream)
                .flatMapToInt(slice -> Arrays.stream(slice.rowGroups())).boxed().collect(java.util.stream.Collectors.toSet()));
    }

    @Test
    void oneFileOfManyRowGroupsIsSpreadEvenlyOverTheCores()
    {
        // DuckDB's shape: one file of 122,880-row row groups (2.9 MB each at 3M lineitem rows), the last one short.
        long[] rowGroups = new long[25];
        Arrays.fill(rowGroups, 2_900_000);
        rowGroups[24] = 1_200_000;
        List<PlannedFile> files = List.of(file("duckdb", rowGroups));
        for (int cores : new int[] {2, 3, 4, 8, 16}) {
            SplitPlan plan = new SplitPlanner(128 * MB, 4 * MB, cores).plan(files, PartitionPruner.none(), noFilters());
            List<Long> bytes = plan.partitions().stream().map(split -> split.stream().mapToLong(FileSlice::bytes).sum()).sorted().toList();
            // At least one split per core, and the `cores` largest within one row group of each other (the rest are remainders).
            assertTrue(bytes.size() >= cores, cores + " cores, splits of " + bytes);
            long largest = bytes.get(bytes.size() - 1);
            long fullSmallest = bytes.get(bytes.size() - cores);
            assertTrue(largest - fullSmallest <= 2_900_000, cores + " cores, splits of " + bytes);
            // Not finer than needed: each split still opens its file once (4 MB of open cost here).
            assertTrue(bytes.size() <= 2 * cores, cores + " cores, splits of " + bytes);
            List<Integer> read = plan.partitions().stream().flatMap(List::stream).flatMapToInt(slice -> Arrays.stream(slice.rowGroups())).sorted().boxed().toList();
            assertEquals(java.util.stream.IntStream.range(0, 25).boxed().toList(), read, "every row group once");
            assertEquals(70_800_000, plan.bytes());
        }
    }

    @Test
    void statisticsPruneRowGroups()
    {
        PlannedFile file = file("stats", MB, MB, MB);
        RowGroupPruner pruner = new RowGroupPruner(List.of(new org.apache.spark.sql.sources.LessThan("x", 15)), new SQLConf(), settings());
        SplitPlan plan = new SplitPlanner(128 * MB, 4 * MB, 1).plan(List.of(file), PartitionPruner.none(), pruner);
        assertEquals(3, plan.rowGroupsTotal());
        assertEquals(1, plan.rowGroupsSkipped(), "row group i holds x in [10 i, 10 i + 9], so only row group 2 cannot hold x < 15");
        assertEquals(1, plan.partitions().size());
        assertEquals("[0, 1]", Arrays.toString(plan.partitions().get(0).get(0).rowGroups()));
    }

    private static RowGroupPruner noFilters()
    {
        return new RowGroupPruner(List.of(), new SQLConf(), settings());
    }

    private static GdsReadSettings settings()
    {
        return new GdsReadSettings(GdsRouteSetting.HOST, FileConsumer.CPU, 4096, 1, MB, 64 * MB, 4 * MB, 65536, 512 * MB, 1024 * MB, true, true, 1, false, false, false, "UTC", "CORRECTED",
                "CORRECTED", false, 0, true, true, true);
    }

    /** A file whose row group i has the given compressed size and holds x in [10 i, 10 i + 9]. */
    @SuppressWarnings("deprecation") // IntStatistics(): the simplest way to make statistics for a fake footer
    private static PlannedFile file(String name, long... rowGroupBytes)
    {
        List<BlockMetaData> blocks = new ArrayList<>();
        long offset = 4;
        for (int index = 0; index < rowGroupBytes.length; index++) {
            BlockMetaData block = new BlockMetaData();
            block.setRowCount(rowGroupBytes[index] == 0 ? 0 : 10);
            IntStatistics statistics = new IntStatistics();
            statistics.updateStats(10 * index);
            statistics.updateStats(10 * index + 9);
            block.addColumn(ColumnChunkMetaData.get(ColumnPath.get("x"), SCHEMA.getType("x").asPrimitiveType(), CompressionCodecName.UNCOMPRESSED, null,
                    Set.of(Encoding.PLAIN), statistics, offset, 0, 10, rowGroupBytes[index], rowGroupBytes[index]));
            block.setTotalByteSize(rowGroupBytes[index]);
            offset += rowGroupBytes[index];
            blocks.add(block);
        }
        ParquetMetadata footer = new ParquetMetadata(new FileMetaData(SCHEMA, Map.of(), "test"), blocks);
        return new PlannedFile(new SourceFile(name, offset + 100, InternalRow.empty(), List.of()), footer);
    }
}
