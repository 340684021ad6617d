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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One file of one large row group (60,000 rows, pages of at most 1000 rows, Spark's writer with its
 * page indexes) read with a split target smaller than the row group: the gds scan plans several
 * tasks over row spans of that one row group, and every answer must equal Spark's own reader's,
 * so no row is lost or read twice at a span's edges: plain scans, pushed filters (row group and page
 * index), a partition column, count(*) answered from row counts, and pushed partial aggregates.
 */
class RowGroupSplitTest
        extends GdsSparkTest
{
    private static final int ROWS = 60_000;
    private static final Pattern SPLIT = Pattern.compile("rowGroupsSplit=1 \\(into (\\d+) row ranges\\)");

    @Test
    void spansOfOneRowGroupAnswerAsSparksReaderDoes(@TempDir java.nio.file.Path directory)
            throws IOException
    {
        String path = write(directory.resolve("flat"), null);
        SparkSession split = splitting(spark, true);
        int partitions = split.read().format("gds").load(path).rdd().getNumPartitions();
        assertTrue(partitions >= 2, "partitions: " + partitions);
        String description = description(split.read().format("gds").load(path));
        Matcher matcher = SPLIT.matcher(description);
        assertTrue(matcher.find(), description);
        assertEquals(partitions, Integer.parseInt(matcher.group(1)), description);

        ScanMetrics.Result all = compare(split, path, "SELECT * FROM t");
        assertEquals(ROWS, all.rows().size());
        assertEquals(0, all.metric("unplannedReads"), all.metrics().toString());
        assertEquals(0, all.metric("pageIndexFallbacks"), all.metrics().toString());
        // Each task reads its span's pages, not the whole row group: with no gap coalescing, all tasks together read
        // about the row group once (the pages across each cut twice, and the page indexes once per task).
        SparkSession uncoalesced = splitting(spark, true);
        uncoalesced.conf().set("spark.ferry.gds.io.coalesceGap", "0");
        SparkSession whole = splitting(spark, false);
        whole.conf().set("spark.ferry.gds.io.coalesceGap", "0");
        long splitBytes = ScanMetrics.collect(uncoalesced.read().format("gds").load(path)).metric("hostBytes");
        long wholeBytes = ScanMetrics.collect(whole.read().format("gds").load(path)).metric("hostBytes");
        assertTrue(splitBytes < 2 * wholeBytes, "split scan read " + splitBytes + " bytes, unsplit " + wholeBytes);
        for (String query : new String[] {
                // Edges of pages (1000 rows) and of the spans (60,000 / partitions rows, moved to page starts).
                "SELECT id, s FROM t WHERE id BETWEEN 9990 AND 10010 OR id BETWEEN 29990 AND 30010 OR id BETWEEN 44990 AND 45010",
                "SELECT * FROM t WHERE maybe IS NULL AND id < 31000",
                "SELECT id, dec FROM t WHERE s = 'v33333' OR id = 777 OR id = 59999 OR id = 0",
                "SELECT id, p FROM t WHERE p = 7 AND r < 50",
                "SELECT count(*) FROM t",
                "SELECT count(*) FROM t WHERE id >= 12345",
                "SELECT count(*), sum(id), sum(dec), count(maybe), min(id), max(id), min(s), max(s) FROM t",
                "SELECT p, count(*), sum(id), max(r) FROM t GROUP BY p",
                "SELECT r % 10 AS k, count(*), sum(id) FROM t GROUP BY r % 10",
                "SELECT count(*), sum(id) FROM t WHERE id < 20000 OR id > 50000",
        }) {
            compare(split, path, query);
        }
        // Page-index skipping inside a span: the filter's pages only, and still no unplanned read.
        ScanMetrics.Result narrow = compare(split, path, "SELECT * FROM t WHERE id >= 40000 AND id < 40100");
        assertTrue(narrow.metric("pagesSkipped") > 0, narrow.metrics().toString());
        assertEquals(0, narrow.metric("unplannedReads"), narrow.metrics().toString());
    }

    @Test
    void aColumnThatCannotSkipRowsDecodesFromTheRowGroupStartAndStillReadsEachRowOnce(@TempDir java.nio.file.Path directory)
            throws IOException
    {
        String path = write(directory.resolve("nested"), "array(id, id + 1) AS pair");
        SparkSession split = splitting(spark, true);
        assertTrue(split.read().format("gds").load(path).rdd().getNumPartitions() >= 2);
        ScanMetrics.Result all = compare(split, path, "SELECT * FROM t");
        assertEquals(ROWS, all.rows().size());
        assertTrue(all.metric("pageIndexFallbacks") >= 2, all.metrics().toString());
        compare(split, path, "SELECT id, pair FROM t WHERE id BETWEEN 19990 AND 20010 OR id > 59990");
        compare(split, path, "SELECT count(*), sum(id), count(pair) FROM t");
    }

    @Test
    void theSettingTurnsSplittingOffAndSaysSo(@TempDir java.nio.file.Path directory)
            throws IOException
    {
        String path = write(directory.resolve("off"), null);
        SparkSession off = splitting(spark, false);
        Dataset<Row> frame = off.read().format("gds").load(path);
        assertEquals(1, frame.rdd().getNumPartitions());
        String description = description(frame);
        assertTrue(description.contains("rowGroupsSplit=0 largeRowGroupsReadWhole={spark.ferry.gds.plan.splitRowGroups=false=1}"), description);
        compare(off, path, "SELECT count(*), sum(id) FROM t");
    }

    /** A session whose split target (maxPartitionBytes 64k, open cost 1k) is smaller than the file's row group. */
    private static SparkSession splitting(SparkSession base, boolean enabled)
    {
        SparkSession session = base.newSession();
        session.conf().set("spark.sql.files.maxPartitionBytes", String.valueOf(64 << 10));
        session.conf().set("spark.sql.files.openCostInBytes", "1024");
        session.conf().set("spark.ferry.gds.plan.splitRowGroups", String.valueOf(enabled));
        return session;
    }

    private static String description(Dataset<Row> frame)
    {
        String plan = frame.queryExecution().executedPlan().toString();
        int start = plan.indexOf("GdsScan");
        assertTrue(start >= 0, plan);
        return plan.substring(start);
    }

    private static ScanMetrics.Result compare(SparkSession session, String path, String query)
    {
        session.read().format("gds").load(path).createOrReplaceTempView("t");
        ScanMetrics.Result gds = ScanMetrics.collect(session.sql(query));
        session.read().parquet(path).createOrReplaceTempView("t");
        List<String> expected = RowRendering.sorted(session.sql(query).collectAsList());
        assertEquals(expected, RowRendering.sorted(gds.rows()), query);
        return gds;
    }

    // One file partitioned by p (one value), one row group of ROWS rows sorted by id, pages of at most 1000 rows.
    private static String write(java.nio.file.Path directory, String extraColumn)
            throws IOException
    {
        String path = directory.toString();
        List<String> columns = new java.util.ArrayList<>(List.of("id", "concat('v', CAST(id AS STRING)) AS s", "CAST(id / 100.0 AS DECIMAL(12, 2)) AS dec",
                "CASE WHEN id % 3 = 0 THEN NULL ELSE id END AS maybe", "CAST(pmod(hash(id), 1000) AS INT) AS r", "7 AS p"));
        if (extraColumn != null) {
            columns.add(extraColumn);
        }
        spark.range(0, ROWS, 1, 1)
                .selectExpr(columns.toArray(new String[0]))
                .write()
                .partitionBy("p")
                .option("parquet.page.row.count.limit", "1000")
                .option("parquet.block.size", String.valueOf(256 << 20))
                .parquet(path);
        try (Stream<java.nio.file.Path> files = Files.walk(directory)) {
            List<java.nio.file.Path> parquet = files.filter(candidate -> candidate.toString().endsWith(".parquet")).toList();
            assertEquals(1, parquet.size(), parquet.toString());
            try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(new Path(parquet.get(0).toString()), new Configuration()))) {
                assertEquals(1, reader.getRowGroups().size(), "want one row group");
                assertTrue(reader.getRowGroups().get(0).getCompressedSize() > 4 * (64 << 10), "the row group should span several split targets: "
                        + reader.getRowGroups().get(0).getCompressedSize());
            }
        }
        return path;
    }
}
