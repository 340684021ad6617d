package dev.ferry.gds.spark;

import dev.ferry.gds.GdsConfigKeys;
import dev.ferry.gds.RowRendering;
import org.apache.spark.sql.DataFrameWriter;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Files Spark writes, every type Spark writes, every codec, both page versions, with and without dictionaries. */
class RoundTripTest
        extends GdsSparkTest
{
    // Every column has nulls; lists and maps also have empty and null elements.
    private static final String[] COLUMNS = {
            "id",
            "CASE WHEN id % 7 = 0 THEN NULL ELSE id % 3 = 0 END AS flag",
            "CASE WHEN id % 11 = 0 THEN NULL ELSE CAST(id % 128 - 64 AS TINYINT) END AS tiny",
            "CASE WHEN id % 13 = 0 THEN NULL ELSE CAST(id * 7 % 30000 - 15000 AS SMALLINT) END AS small",
            "CASE WHEN id % 5 = 0 THEN NULL ELSE CAST(id * 2654435761 % 2147483647 AS INT) END AS i",
            "CASE WHEN id % 9 = 0 THEN NULL ELSE id * 1099511628211 END AS l",
            "CASE WHEN id % 17 = 0 THEN NULL WHEN id % 19 = 0 THEN CAST('NaN' AS FLOAT) ELSE CAST(id / 3.0 AS FLOAT) END AS f",
            "CASE WHEN id % 23 = 0 THEN NULL WHEN id % 29 = 0 THEN CAST('-Infinity' AS DOUBLE) ELSE id / 7.0 END AS d",
            "CASE WHEN id % 6 = 0 THEN NULL ELSE CAST(id * 1.25 - 1000 AS DECIMAL(9, 2)) END AS dec9",
            "CASE WHEN id % 8 = 0 THEN NULL ELSE CAST(id * 123456.789 - 5e8 AS DECIMAL(18, 3)) END AS dec18",
            "CASE WHEN id % 10 = 0 THEN NULL ELSE CAST(id AS DECIMAL(38, 10)) * CAST('12345678901234567.0123456789' AS DECIMAL(38, 10)) / 1000 END AS dec38",
            "CASE WHEN id % 4 = 0 THEN NULL ELSE concat('s', CAST(id % 50 AS STRING), repeat('x', CAST(id % 5 AS INT))) END AS s",
            "CASE WHEN id % 12 = 0 THEN NULL ELSE unhex(hex(id * 31)) END AS bin",
            "CASE WHEN id % 14 = 0 THEN NULL ELSE date_add(DATE '1969-12-25', CAST(id % 20000 AS INT)) END AS dt",
            "CASE WHEN id % 15 = 0 THEN NULL ELSE timestamp_micros(id * 86400000123 - 2000000000000000) END AS ts",
            "CASE WHEN id % 16 = 0 THEN NULL ELSE CAST(timestamp_micros(id * 3600000001) AS TIMESTAMP_NTZ) END AS ts_ntz",
            "CASE WHEN id % 18 = 0 THEN NULL WHEN id % 5 = 1 THEN array() ELSE array(CAST(id AS INT), NULL, CAST(id + 1 AS INT)) END AS arr",
            "CASE WHEN id % 20 = 0 THEN NULL ELSE map(concat('k', CAST(id % 3 AS STRING)), CAST(id AS INT), 'z', NULL) END AS m",
            "CASE WHEN id % 21 = 0 THEN NULL ELSE named_struct('a', CASE WHEN id % 2 = 0 THEN NULL ELSE CAST(id AS INT) END, 'b', CAST(id AS STRING), "
                    + "'c', array(id / 2.0, id / 4.0)) END AS st",
            "CASE WHEN id % 22 = 0 THEN NULL ELSE array(named_struct('x', CAST(id AS INT), 'y', array('p', CAST(id AS STRING))), "
                    + "CASE WHEN id % 3 = 0 THEN NULL ELSE named_struct('x', NULL, 'y', CAST(NULL AS ARRAY<STRING>)) END) END AS nested",
            "CASE WHEN id % 24 = 0 THEN NULL ELSE map(CAST(id % 4 AS INT), array(named_struct('q', CAST(id AS DOUBLE)))) END AS map_of_lists",
    };

    @Test
    void everyCodecPageVersionAndDictionarySetting(@TempDir Path directory)
    {
        Dataset<Row> data = spark.range(0, 3000, 1, 2).selectExpr(COLUMNS);
        List<Variant> variants = List.of(
                new Variant("snappy-dictionary-v1", "snappy", Map.of()),
                new Variant("gzip-plain-v1", "gzip", Map.of("parquet.enable.dictionary", "false")),
                new Variant("zstd-dictionary-v2", "zstd", Map.of("parquet.writer.version", "PARQUET_2_0")),
                new Variant("lz4raw-plain-v2", "lz4_raw", Map.of("parquet.writer.version", "PARQUET_2_0", "parquet.enable.dictionary", "false")),
                new Variant("uncompressed-many-row-groups", "uncompressed", Map.of("parquet.block.size", "16384", "parquet.page.size", "2048",
                        "parquet.page.row.count.limit", "100")),
                // Many pages of varying size per chunk: decompressed pages reuse arrays given back by the decoder (PageArrays).
                new Variant("snappy-many-pages-v1", "snappy", Map.of("parquet.block.size", "32768", "parquet.page.size", "1024",
                        "parquet.page.row.count.limit", "37")),
                new Variant("zstd-many-plain-pages-v2", "zstd", Map.of("parquet.writer.version", "PARQUET_2_0", "parquet.enable.dictionary", "false",
                        "parquet.block.size", "32768", "parquet.page.size", "1024", "parquet.page.row.count.limit", "53")));
        for (Variant variant : variants) {
            String path = directory.resolve(variant.name()).toString();
            DataFrameWriter<Row> writer = data.write().option("compression", variant.codec());
            variant.options().forEach(writer::option);
            writer.parquet(path);
            assertSameAsSpark(path, variant.name());
        }
    }

    @Test
    void legacyLayoutsAndInt96AndMillisTimestamps(@TempDir Path directory)
    {
        Dataset<Row> data = spark.range(0, 1500, 1, 1).selectExpr(COLUMNS);
        SparkSession legacy = spark.newSession();
        legacy.conf().set("spark.sql.parquet.writeLegacyFormat", "true");
        legacy.conf().set("spark.sql.parquet.outputTimestampType", "INT96");
        String legacyPath = directory.resolve("legacy-int96").toString();
        legacy.range(0, 1500, 1, 1).selectExpr(COLUMNS).write().parquet(legacyPath);
        assertSameAsSpark(legacyPath, "legacy layouts, FIXED_LEN_BYTE_ARRAY decimals, INT96");

        SparkSession millis = spark.newSession();
        millis.conf().set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MILLIS");
        String millisPath = directory.resolve("millis").toString();
        millis.range(0, 1500, 1, 1).selectExpr(COLUMNS).write().parquet(millisPath);
        assertSameAsSpark(millisPath, "TIMESTAMP_MILLIS");
        assertTrue(data.count() > 0);
    }

    @Test
    void allNullAndEmptyFiles(@TempDir Path directory)
    {
        String allNull = directory.resolve("all-null").toString();
        spark.range(0, 500, 1, 1).selectExpr(COLUMNS).selectExpr(nulled()).write().parquet(allNull);
        assertSameAsSpark(allNull, "all null");

        String empty = directory.resolve("empty").toString();
        spark.range(0, 0, 1, 1).selectExpr(COLUMNS).write().parquet(empty);
        Dataset<Row> ours = spark.read().format("gds").load(empty);
        assertEquals(spark.read().parquet(empty).schema(), ours.schema());
        assertEquals(0, ours.collectAsList().size());
    }

    @Test
    void prunedColumnsAndNestedFields(@TempDir Path directory)
    {
        String path = directory.resolve("pruning").toString();
        spark.range(0, 2000, 1, 1).selectExpr(COLUMNS).write().option("parquet.block.size", "65536").parquet(path);
        for (String[] projection : new String[][] {{"s", "id"}, {"st.b", "st.a"}, {"nested"}, {"m", "dec38"}, {"id"}}) {
            List<String> ours = RowRendering.sorted(spark.read().format("gds").load(path).selectExpr(projection).collectAsList());
            List<String> theirs = RowRendering.sorted(spark.read().parquet(path).selectExpr(projection).collectAsList());
            assertEquals(theirs, ours, String.join(",", projection));
        }
        assertEquals(2000, spark.read().format("gds").load(path).count());
    }

    private static String[] nulled()
    {
        String[] expressions = new String[COLUMNS.length];
        String[] names = spark.range(0, 1).selectExpr(COLUMNS).columns();
        for (int index = 0; index < names.length; index++) {
            expressions[index] = index == 0 ? "id" : "CAST(NULL AS " + spark.range(0, 1).selectExpr(COLUMNS).schema().fields()[index].dataType().sql() + ") AS " + names[index];
        }
        return expressions;
    }

    private static void assertSameAsSpark(String path, String what)
    {
        // Small batches, so batches end mid-page and a page's values are read across several batches.
        Dataset<Row> ours = spark.read().format("gds").option(GdsConfigKeys.BATCH_ROWS.name(), "100").load(path);
        Dataset<Row> theirs = spark.read().parquet(path);
        assertEquals(theirs.schema(), ours.schema(), what);
        List<String> expected = RowRendering.sorted(theirs.collectAsList());
        List<String> actual = RowRendering.sorted(ours.collectAsList());
        assertEquals(expected.size(), actual.size(), what);
        for (int index = 0; index < expected.size(); index++) {
            assertEquals(expected.get(index), actual.get(index), what + ", row " + index);
        }
    }

    private record Variant(String name, String codec, Map<String, String> options) {}
}
