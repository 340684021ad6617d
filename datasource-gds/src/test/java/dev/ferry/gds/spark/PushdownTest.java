package dev.ferry.gds.spark;

import dev.ferry.gds.RowRendering;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Filters prune row groups by statistics, and the answers stay exactly those of reading everything then filtering. */
class PushdownTest
        extends GdsSparkTest
{
    private static final String[] FILTERS = {
            "id < 1000",
            "id >= 39000 AND id < 39010",
            "id = 12345 OR id IN (5, 39999)",
            "s = 'v20000' OR s LIKE 'v3999%'",
            "dt > DATE '2030-01-01' AND dec < 39000.50",
            "maybe IS NULL AND id < 3000",
            "ts < TIMESTAMP '2020-01-01 00:00:10' OR f > 3999.5",
            "NOT (id > 100)",
    };

    @Test
    void filteredResultsEqualUnfilteredThenFilteredAndRowGroupsAreSkipped(@TempDir java.nio.file.Path directory)
            throws IOException
    {
        String path = directory.resolve("sorted").toString();
        spark.range(0, 40000, 1, 1)
                .selectExpr("id", "concat('v', CAST(id AS STRING)) AS s", "date_add(DATE '2000-01-01', CAST(id AS INT)) AS dt",
                        "CAST(id / 100.0 AS DECIMAL(12, 2)) AS dec", "CASE WHEN id % 2 = 0 THEN NULL ELSE id END AS maybe",
                        "timestamp_seconds(1577836800 + id) AS ts", "CAST(id / 10.0 AS FLOAT) AS f")
                .write().option("parquet.block.size", "32768").option("parquet.enable.dictionary", "false").parquet(path);
        int rowGroups = rowGroups(directory.resolve("sorted"));
        assertTrue(rowGroups >= 10, "want many row groups, got " + rowGroups);

        SparkSession unpushed = spark.newSession();
        unpushed.conf().set("spark.ferry.gds.filterPushdown", "false");
        for (String filter : FILTERS) {
            ScanMetrics.Result pushed = ScanMetrics.collect(spark.read().format("gds").load(path).where(filter));
            ScanMetrics.Result everything = ScanMetrics.collect(unpushed.read().format("gds").load(path).where(filter));
            List<String> expected = RowRendering.sorted(spark.read().parquet(path).where(filter).collectAsList());
            assertEquals(expected, RowRendering.sorted(pushed.rows()), filter);
            assertEquals(expected, RowRendering.sorted(everything.rows()), filter + " without pushdown");
            assertEquals(0, everything.metric("rowGroupsSkipped"), filter);
            assertEquals(rowGroups, everything.metric("rowGroupsRead"), filter);
            assertEquals(rowGroups, pushed.metric("rowGroupsRead") + pushed.metric("rowGroupsSkipped"), filter);
        }
        ScanMetrics.Result narrow = ScanMetrics.collect(spark.read().format("gds").load(path).where("id < 1000"));
        assertTrue(narrow.metric("rowGroupsSkipped") >= rowGroups - 2, "id < 1000 should read one or two row groups: " + narrow.metrics());
        assertTrue(narrow.metric("hostBytes") > 0 && narrow.metric("readRequests") > 0, narrow.metrics().toString());
        ScanMetrics.Result none = ScanMetrics.collect(spark.read().format("gds").load(path).where("id > 1000000"));
        assertEquals(rowGroups, none.metric("rowGroupsSkipped"));
        assertEquals(0, none.metric("hostBytes"));
    }

    @Test
    void scanReportsStatisticsAndPlan(@TempDir java.nio.file.Path directory)
    {
        String path = directory.resolve("stats").toString();
        spark.range(0, 5000, 1, 2).selectExpr("id", "id * 2 AS twice").write().parquet(path);
        Dataset<Row> frame = spark.read().format("gds").load(path);
        org.apache.spark.sql.catalyst.plans.logical.Statistics statistics = frame.queryExecution().optimizedPlan().stats();
        assertEquals(5000L, statistics.rowCount().get().longValue());
        assertTrue(statistics.sizeInBytes().longValue() > 0);
        String explained = frame.where("id < 10").queryExecution().executedPlan().toString();
        assertTrue(explained.contains("GdsScan") && explained.contains("route=auto consumer=cpu (HOST: ") && explained.contains("pushedFilters=["), explained);
        SparkSession forced = spark.newSession();
        forced.conf().set("spark.ferry.gds.route", "gds");
        Exception refused = org.junit.jupiter.api.Assertions.assertThrows(Exception.class, () -> forced.read().format("gds").load(path).collectAsList());
        assertTrue(ParquetTestingCorpusTestMessages.full(refused).contains("spark.ferry.gds.route=gds cannot read"), ParquetTestingCorpusTestMessages.full(refused));
    }

    private static int rowGroups(java.nio.file.Path directory)
            throws IOException
    {
        int count = 0;
        try (Stream<java.nio.file.Path> files = Files.list(directory)) {
            for (java.nio.file.Path file : files.filter(candidate -> candidate.toString().endsWith(".parquet")).toList()) {
                try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(new Path(file.toString()), new Configuration()))) {
                    count += reader.getRowGroups().size();
                }
            }
        }
        return count;
    }
}
