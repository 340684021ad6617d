package dev.ferry.gds.spark;

import dev.ferry.gds.RowRendering;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Page-index skipping on Spark-written files (Parquet 1.17 writes column and offset indexes): one
 * large row group of many small pages, so statistics cannot skip the row group but column indexes
 * can skip pages. Every answer must equal Spark's own reader and the gds reader without pushdown,
 * on multi-column and nullable filters, with and without dictionaries, page v1 and v2.
 */
class PageIndexPushdownTest
        extends GdsSparkTest
{
    private static final String[] FILTERS = {
            "id >= 5000 AND id < 5100",
            "id < 1500 OR id > 38000",
            "maybe IS NULL AND id BETWEEN 20000 AND 20500",
            "maybe > 31000 AND maybe < 31200",
            "id > 30000 AND r < 100",
            "s = 'v20000' OR id = 777",
            "dec < 12.5 AND f >= 0",
            "flag AND id < 3000",
            "ts < TIMESTAMP '2020-01-01 00:10:00'",
            "r = 5",
            "id > 1000000",
    };

    @Test
    void pagesAreSkippedAndAnswersEqualUnfilteredThenFiltered(@TempDir java.nio.file.Path directory)
            throws IOException
    {
        String[][] variants = {
                {"v1-dictionary", "true", "PARQUET_1_0"},
                {"v1-plain", "false", "PARQUET_1_0"},
                {"v2-plain", "false", "PARQUET_2_0"},
                {"v2-dictionary", "true", "PARQUET_2_0"},
        };
        for (String[] variant : variants) {
            String path = write(directory.resolve(variant[0]), null, variant[1], variant[2]);
            long skipped = 0;
            for (String filter : FILTERS) {
                ScanMetrics.Result pushed = compare(path, filter, variant[0]);
                assertEquals(0, pushed.metric("pageIndexFallbacks"), variant[0] + ": " + filter);
                assertEquals(0, pushed.metric("unplannedReads"), variant[0] + ": " + filter + " " + pushed.metrics());
                skipped += pushed.metric("pagesSkipped");
            }
            ScanMetrics.Result narrow = compare(path, "id >= 5000 AND id < 5100", variant[0]);
            // 40 pages of 1000 rows per column; the filter needs one page of each of the 9 columns.
            assertTrue(narrow.metric("pagesSkipped") >= 9 * 30, variant[0] + ": " + narrow.metrics());
            assertTrue(skipped > 0, variant[0]);
        }
    }

    @Test
    void nestedColumnsReadTheRowGroupWholeAndSayWhy(@TempDir java.nio.file.Path directory)
            throws IOException
    {
        String path = write(directory.resolve("nested"), "array(id, id + 1) AS pair", "true", "PARQUET_1_0");
        ScanMetrics.Result pushed = compare(path, "id >= 5000 AND id < 5100", "nested");
        assertEquals(1, pushed.metric("pageIndexFallbacks"), pushed.metrics().toString());
        assertEquals(0, pushed.metric("pagesSkipped"));
        // Without the nested column the same file skips pages.
        ScanMetrics.Result flat = ScanMetrics.collect(spark.read().format("gds").load(path).where("id >= 5000 AND id < 5100").select("id", "s"));
        assertEquals(100, flat.rows().size());
        assertTrue(flat.metric("pagesSkipped") > 0, flat.metrics().toString());
        assertEquals(0, flat.metric("pageIndexFallbacks"));
    }

    @Test
    void pageIndexPushdownCanBeTurnedOff(@TempDir java.nio.file.Path directory)
            throws IOException
    {
        String path = write(directory.resolve("off"), null, "false", "PARQUET_1_0");
        SparkSession off = spark.newSession();
        off.conf().set("spark.ferry.gds.pageIndexPushdown", "false");
        ScanMetrics.Result result = ScanMetrics.collect(off.read().format("gds").load(path).where("id >= 5000 AND id < 5100"));
        assertEquals(100, result.rows().size());
        assertEquals(0, result.metric("pagesSkipped"));
    }

    private static ScanMetrics.Result compare(String path, String filter, String variant)
    {
        SparkSession unpushed = spark.newSession();
        unpushed.conf().set("spark.ferry.gds.filterPushdown", "false");
        ScanMetrics.Result pushed = ScanMetrics.collect(spark.read().format("gds").load(path).where(filter));
        ScanMetrics.Result everything = ScanMetrics.collect(unpushed.read().format("gds").load(path).where(filter));
        Dataset<Row> parquet = spark.read().parquet(path).where(filter);
        List<String> expected = RowRendering.sorted(parquet.collectAsList());
        assertEquals(expected, RowRendering.sorted(pushed.rows()), variant + ": " + filter);
        assertEquals(expected, RowRendering.sorted(everything.rows()), variant + ": " + filter + " without pushdown");
        assertEquals(0, everything.metric("pagesSkipped"), variant + ": " + filter);
        return pushed;
    }

    // One file, one row group of 40,000 rows sorted by id, pages of at most 1000 rows.
    private static String write(java.nio.file.Path directory, String extraColumn, String dictionary, String writerVersion)
            throws IOException
    {
        String path = directory.toString();
        List<String> columns = new java.util.ArrayList<>(List.of("id", "concat('v', CAST(id AS STRING)) AS s", "CAST(id / 100.0 AS DECIMAL(12, 2)) AS dec",
                        "CASE WHEN id % 3 = 0 THEN NULL ELSE id END AS maybe", "CAST(pmod(hash(id), 1000) AS INT) AS r",
                        "CAST(id / 10.0 AS FLOAT) AS f", "id % 7 = 0 AS flag", "timestamp_seconds(1577836800 + id) AS ts",
                        "CASE WHEN id % 5 = 0 THEN NULL ELSE concat('n', CAST(id % 50 AS STRING)) END AS tag"));
        if (extraColumn != null) {
            columns.add(extraColumn);
        }
        spark.range(0, 40000, 1, 1)
                .selectExpr(columns.toArray(new String[0]))
                .write()
                .option("parquet.page.row.count.limit", "1000")
                .option("parquet.page.size", "1048576")
                .option("parquet.block.size", String.valueOf(256 << 20))
                .option("parquet.enable.dictionary", dictionary)
                .option("parquet.writer.version", writerVersion)
                .parquet(path);
        try (Stream<java.nio.file.Path> files = Files.list(directory)) {
            for (java.nio.file.Path file : files.filter(candidate -> candidate.toString().endsWith(".parquet")).toList()) {
                try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(new Path(file.toString()), new Configuration()))) {
                    assertEquals(1, reader.getRowGroups().size(), "want one row group");
                    for (BlockMetaData block : reader.getRowGroups()) {
                        for (ColumnChunkMetaData chunk : block.getColumns()) {
                            // INT96 has no defined order, so it gets an offset index but no column index.
                            boolean int96 = chunk.getPrimitiveType().getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.INT96;
                            assertTrue(chunk.getOffsetIndexReference() != null && (int96 || chunk.getColumnIndexReference() != null),
                                    "Spark's writer should write page indexes: " + chunk.getPath());
                        }
                    }
                    assertTrue(reader.readOffsetIndex(reader.getRowGroups().get(0).getColumns().get(0)).getPageCount() >= 40,
                            Map.of("pages", reader.readOffsetIndex(reader.getRowGroups().get(0).getColumns().get(0)).getPageCount()).toString());
                }
            }
        }
        return path;
    }
}
