package dev.ferry.gds.plan;

import dev.ferry.gds.GdsReadSettings;
import dev.ferry.gds.GdsRouteSetting;
import dev.ferry.gds.parquet.FileSlice;
import dev.ferry.gds.parquet.RowSpan;
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
import org.apache.parquet.internal.hadoop.metadata.IndexReference;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.LessThan;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Splitting a row group larger than the split target into row spans: how many, where they cut, and when not. */
class RowGroupSplitPlanTest
{
    private static final MessageType SCHEMA = Types.buildMessage()
            .required(PrimitiveType.PrimitiveTypeName.INT32).named("x")
            .required(PrimitiveType.PrimitiveTypeName.INT64).named("y")
            .named("test");
    private static final long MB = 1 << 20;

    @Test
    void oneLargeRowGroupOnTwoCoresIsReadByTwoTasks()
    {
        // The multi-writer corpus' Spark-written file: 3M rows in one 66 MB row group. Target min(128m, max(4m, 70m / 2)) = 35m.
        SplitPlan plan = new SplitPlanner(128 * MB, 4 * MB, 2, RowGroupSplitting.on())
                .plan(List.of(file("spark", true, rowGroup(3_000_000, 66 * MB))), PartitionPruner.none(), noFilters());
        assertEquals(2, plan.partitions().size());
        assertEquals(1, plan.rowGroupsSplit());
        assertEquals(2, plan.rowSpans());
        assertEquals(List.of(new RowSpan(0, 1_500_000), new RowSpan(1_500_000, 3_000_000)), spans(plan));
        assertEquals(3_000_000, plan.rows());
        assertEquals(66 * MB, plan.bytes());
        assertEquals(" rowGroupsSplit=1 (into 2 row ranges)", plan.describeSplitting());
        for (List<FileSlice> partition : plan.partitions()) {
            assertEquals(1, partition.size());
            assertEquals(33 * MB, partition.get(0).bytes());
        }
    }

    @Test
    void spansFollowSparksTargetAndCoverTheRowGroupExactly()
    {
        // 1 GB on 2 cores: the target is maxPartitionBytes (128m), so 8 spans; an odd row count still adds up.
        long rows = 10_000_019;
        SplitPlan plan = new SplitPlanner(128 * MB, 4 * MB, 2, RowGroupSplitting.on())
                .plan(List.of(file("big", true, rowGroup(rows, 1024 * MB))), PartitionPruner.none(), noFilters());
        List<RowSpan> spans = spans(plan);
        assertEquals(8, spans.size());
        long next = 0;
        long sum = 0;
        for (RowSpan span : spans) {
            assertEquals(next, span.from(), "spans meet: " + spans);
            next = span.to();
            sum += span.rows();
        }
        assertEquals(rows, next);
        assertEquals(rows, sum);
        assertEquals(rows, plan.rows());
        assertEquals(1024 * MB, plan.partitions().stream().flatMap(List::stream).mapToLong(FileSlice::bytes).sum());
        long largest = spans.stream().mapToLong(RowSpan::rows).max().orElseThrow();
        long smallest = spans.stream().mapToLong(RowSpan::rows).min().orElseThrow();
        assertTrue(largest - smallest <= 1, spans.toString());
    }

    @Test
    void rowGroupsWithinTheTargetAreNotSplit()
    {
        // DuckDB's layout: many row groups of 2.9 MB; the target is 35 MB or so, so runs of whole row groups as before.
        long[][] groups = new long[25][];
        for (int index = 0; index < groups.length; index++) {
            groups[index] = rowGroup(122_880, 2900 * 1024);
        }
        SplitPlan plan = new SplitPlanner(128 * MB, 4 * MB, 2, RowGroupSplitting.on())
                .plan(List.of(file("duckdb", true, groups)), PartitionPruner.none(), noFilters());
        assertEquals(0, plan.rowGroupsSplit());
        assertEquals(Map.of(), plan.rowGroupsKeptWhole());
        assertTrue(plan.partitions().stream().flatMap(List::stream).noneMatch(FileSlice::hasRowSpans));
        assertEquals(" rowGroupsSplit=0", plan.describeSplitting());
    }

    @Test
    void withoutOffsetIndexesTheRowGroupIsReadWholeAndCounted()
    {
        SplitPlan plan = new SplitPlanner(128 * MB, 4 * MB, 2, RowGroupSplitting.on())
                .plan(List.of(file("old-writer", false, rowGroup(3_000_000, 66 * MB))), PartitionPruner.none(), noFilters());
        assertEquals(1, plan.partitions().size());
        assertEquals(0, plan.rowGroupsSplit());
        assertEquals(Map.of(RowGroupSplitting.NO_OFFSET_INDEX, 1L), plan.rowGroupsKeptWhole());
        assertNull(plan.partitions().get(0).get(0).rowSpans()[0]);
        assertTrue(plan.describeSplitting().contains("largeRowGroupsReadWhole={a column chunk has no offset index=1}"), plan.describeSplitting());
    }

    @Test
    void theSettingAndTheDeviceConsumerKeepRowGroupsWhole()
    {
        for (RowGroupSplitting off : List.of(RowGroupSplitting.fromSetting(false), RowGroupSplitting.off("consumer=device"))) {
            SplitPlan plan = new SplitPlanner(128 * MB, 4 * MB, 2, off)
                    .plan(List.of(file("spark", true, rowGroup(3_000_000, 66 * MB))), PartitionPruner.none(), noFilters());
            assertEquals(1, plan.partitions().size());
            assertEquals(1, plan.rowGroupsKeptWhole().values().stream().mapToLong(Long::longValue).sum(), plan.rowGroupsKeptWhole().toString());
        }
        assertEquals(Map.of("spark.ferry.gds.plan.splitRowGroups=false", 1L), new SplitPlanner(128 * MB, 4 * MB, 2, RowGroupSplitting.fromSetting(false))
                .plan(List.of(file("spark", true, rowGroup(3_000_000, 66 * MB))), PartitionPruner.none(), noFilters()).rowGroupsKeptWhole());
    }

    @Test
    void onlyRowGroupsThatSurvivePruningAreSplitAndTheirNeighboursStayWhole()
    {
        // Row group i holds x in [10 i, 10 i + 9]: x < 15 keeps 0 and 1. Row group 1 is large, 0 small.
        PlannedFile file = file("mixed", true, rowGroup(1000, MB), rowGroup(3_000_000, 66 * MB), rowGroup(3_000_000, 66 * MB));
        List<Filter> filters = List.of(new LessThan("x", 15));
        SplitPlan plan = new SplitPlanner(128 * MB, 4 * MB, 2, RowGroupSplitting.on())
                .plan(List.of(file), PartitionPruner.none(), new RowGroupPruner(filters, new SQLConf(), settings()));
        assertEquals(1, plan.rowGroupsSkipped());
        assertEquals(1, plan.rowGroupsSplit());
        List<String> read = new ArrayList<>();
        for (FileSlice slice : plan.partitions().stream().flatMap(List::stream).toList()) {
            for (int position = 0; position < slice.rowGroups().length; position++) {
                RowSpan span = slice.rowSpans()[position];
                read.add(slice.rowGroups()[position] + (span == null ? " whole" : " " + span));
            }
        }
        read.sort(Comparator.naturalOrder());
        assertEquals(List.of("0 whole", "1 rows [0, 1500000)", "1 rows [1500000, 3000000)"), read);
        assertEquals(1000 + 3_000_000, plan.rows());
    }

    private static List<RowSpan> spans(SplitPlan plan)
    {
        List<RowSpan> spans = new ArrayList<>();
        for (FileSlice slice : plan.partitions().stream().flatMap(List::stream).toList()) {
            assertEquals(1, slice.rowGroups().length, slice.toString());
            spans.add(slice.rowSpans()[0]);
            assertEquals(slice.rowSpans()[0].rows(), slice.rows());
        }
        spans.sort(Comparator.comparingLong(RowSpan::from));
        return spans;
    }

    private static RowGroupPruner noFilters()
    {
        return new RowGroupPruner(List.of(), new SQLConf(), settings());
    }

    private static GdsReadSettings settings()
    {
        return new GdsReadSettings(GdsRouteSetting.HOST, FileConsumer.CPU, 4096, 1, MB, 64 * MB, 4 * MB, 65536, 512 * MB, 1024 * MB, true, true, 1, false, false, false,
                "UTC", "CORRECTED", "CORRECTED", false, 0, true, true, true);
    }

    private static long[] rowGroup(long rows, long bytes)
    {
        return new long[] {rows, bytes};
    }

    /** A file of the given row groups ({rows, compressed bytes}); row group i holds x in [10 i, 10 i + 9]; offset indexes in every chunk or none. */
    @SuppressWarnings("deprecation") // IntStatistics(): the simplest way to make statistics for a fake footer
    private static PlannedFile file(String name, boolean offsetIndexes, long[]... rowGroups)
    {
        List<BlockMetaData> blocks = new ArrayList<>();
        long offset = 4;
        for (int index = 0; index < rowGroups.length; index++) {
            long rows = rowGroups[index][0];
            long bytes = rowGroups[index][1];
            BlockMetaData block = new BlockMetaData();
            block.setRowCount(rows);
            for (String column : List.of("x", "y")) {
                IntStatistics statistics = new IntStatistics();
                statistics.updateStats(10 * index);
                statistics.updateStats(10 * index + 9);
                ColumnChunkMetaData chunk = ColumnChunkMetaData.get(ColumnPath.get(column), SCHEMA.getType(column).asPrimitiveType(),
                        CompressionCodecName.UNCOMPRESSED, null, Set.of(Encoding.PLAIN), column.equals("x") ? statistics : new org.apache.parquet.column.statistics.LongStatistics(),
                        offset, 0, rows, bytes / 2, bytes / 2);
                if (offsetIndexes) {
                    chunk.setOffsetIndexReference(new IndexReference(1L << 40, 100));
                }
                block.addColumn(chunk);
                offset += bytes / 2;
            }
            block.setTotalByteSize(bytes);
            blocks.add(block);
        }
        ParquetMetadata footer = new ParquetMetadata(new FileMetaData(SCHEMA, Map.of(), "test"), blocks);
        return new PlannedFile(new SourceFile(name, offset + 100, InternalRow.empty(), List.of()), footer);
    }
}
