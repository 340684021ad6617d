package dev.ferry.gds.spark;

import dev.ferry.gds.RowRendering;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Files, directories, globs, {@code key=value} partitions, merged schemas, SQL, and the ignore-files settings. */
class LayoutTest
        extends GdsSparkTest
{
    @Test
    void partitionDirectoriesBecomeColumns(@TempDir Path directory)
    {
        String path = directory.resolve("table").toString();
        spark.range(0, 600, 1, 3)
                .selectExpr("id", "CAST(id % 3 + 2019 AS INT) AS year", "CASE WHEN id % 4 = 0 THEN NULL ELSE concat('r', CAST(id % 2 AS STRING)) END AS region",
                        "CAST(id AS STRING) AS label")
                .write().partitionBy("year", "region").parquet(path);
        assertSame(spark.read().format("gds").load(path), spark.read().parquet(path), "partitioned table");
        assertSame(spark.read().format("gds").load(path).where("year = 2020 AND region IS NULL").select("label", "region", "year"),
                spark.read().parquet(path).where("year = 2020 AND region IS NULL").select("label", "region", "year"), "partition filter");
        for (String filter : new String[] {"year = 2020", "year > 2019 AND region = 'r1'", "region IS NULL OR year IN (2019)", "NOT (year <= 2020)",
                "region LIKE 'r0%'", "year = 2020 OR label = '7'"}) {
            ScanMetrics.Result pruned = ScanMetrics.collect(spark.read().format("gds").load(path).where(filter));
            assertEquals(RowRendering.sorted(spark.read().parquet(path).where(filter).collectAsList()), RowRendering.sorted(pruned.rows()), filter);
            if (!filter.contains("label")) {
                assertTrue(pruned.metric("filesPruned") > 0, filter + " prunes nothing: " + pruned.metrics());
            }
            else {
                assertEquals(0, pruned.metric("filesPruned"), filter + " mentions a data column, so no file can be ruled out by partitions alone");
            }
        }
        assertSame(spark.read().format("gds").load(path).selectExpr("count(*)", "sum(year)"),
                spark.read().parquet(path).selectExpr("count(*)", "sum(year)"), "partition columns only");
        assertSame(spark.read().format("gds").option("basePath", path).load(path + "/year=2021/*"),
                spark.read().option("basePath", path).parquet(path + "/year=2021/*"), "glob with basePath");
    }

    @Test
    void filesDirectoriesGlobsAndSql(@TempDir Path directory)
            throws IOException
    {
        String path = directory.resolve("plain").toString();
        spark.range(0, 300, 1, 3).selectExpr("id", "id * 2 AS twice").write().parquet(path);
        String oneFile;
        try (Stream<Path> files = Files.list(directory.resolve("plain"))) {
            oneFile = files.filter(file -> file.toString().endsWith(".parquet")).findFirst().orElseThrow().toString();
        }
        assertSame(spark.read().format("gds").load(oneFile), spark.read().parquet(oneFile), "one file");
        assertSame(spark.read().format("gds").load(path + "/part-*"), spark.read().parquet(path + "/part-*"), "glob");
        assertSame(spark.read().format("gds").load(oneFile, path), spark.read().parquet(oneFile, path), "several paths");

        spark.sql("CREATE TABLE gds_table USING gds LOCATION '" + path + "'");
        try {
            assertSame(spark.sql("SELECT twice FROM gds_table WHERE id > 250"), spark.read().parquet(path).where("id > 250").select("twice"), "USING gds");
        }
        finally {
            spark.sql("DROP TABLE gds_table");
        }
    }

    @Test
    void schemasMergeAcrossFiles(@TempDir Path directory)
    {
        String path = directory.resolve("merged").toString();
        spark.range(0, 100, 1, 1).selectExpr("id", "CAST(id AS STRING) AS a", "named_struct('x', id) AS st").write().parquet(path + "/part=1");
        spark.range(100, 200, 1, 1).selectExpr("id", "id * 1.5 AS b", "named_struct('x', id, 'y', 'why') AS st").write().parquet(path + "/part=2");
        Dataset<Row> ours = spark.read().format("gds").load(path);
        Dataset<Row> theirs = spark.read().option("mergeSchema", "true").parquet(path);
        assertEquals(theirs.schema(), ours.schema());
        assertSame(ours, theirs, "merged schema");
    }

    @Test
    void ignoreCorruptAndMissingFiles(@TempDir Path directory)
            throws IOException
    {
        Path table = directory.resolve("mixed");
        spark.range(0, 200, 1, 2).selectExpr("id").write().parquet(table.toString());
        Path corrupt = table.resolve("part-99999-corrupt.parquet");
        Files.write(corrupt, "PAR1 this is not really parquet at all PAR1".getBytes(java.nio.charset.StandardCharsets.US_ASCII));

        Exception failure = assertThrows(Exception.class, () -> spark.read().format("gds").load(table.toString()).collectAsList());
        assertTrue(ParquetTestingCorpusTestMessages.full(failure).contains("part-99999-corrupt.parquet"), ParquetTestingCorpusTestMessages.full(failure));

        SparkSession ignoring = spark.newSession();
        ignoring.conf().set("spark.sql.files.ignoreCorruptFiles", "true");
        assertEquals(200, ignoring.read().format("gds").load(table.toString()).collectAsList().size());
        assertEquals(200, spark.read().format("gds").option("ignoreCorruptFiles", "true").load(table.toString()).collectAsList().size());
        Files.delete(corrupt);

        // A file deleted after planning: the task finds it gone.
        Dataset<Row> planned = spark.read().format("gds").load(table.toString());
        Dataset<Row> plannedIgnoring = ignoringMissing().read().format("gds").load(table.toString());
        Path victim;
        try (Stream<Path> files = Files.list(table)) {
            victim = files.filter(file -> file.toString().endsWith(".parquet")).findFirst().orElseThrow();
        }
        long victimRows = spark.read().parquet(victim.toString()).count();
        Files.delete(victim);
        Exception missing = assertThrows(Exception.class, planned::collectAsList);
        assertTrue(ParquetTestingCorpusTestMessages.full(missing).contains(victim.getFileName().toString()), ParquetTestingCorpusTestMessages.full(missing));
        assertEquals(200 - victimRows, plannedIgnoring.collectAsList().size());
    }

    @Test
    void aScanOverItsArrowLimitFailsNamingTheKeyAndIsNeverSkippedAsCorrupt(@TempDir Path directory)
    {
        String path = directory.resolve("wide").toString();
        spark.range(0, 4000, 1, 1).selectExpr("id", "repeat(CAST(id AS STRING), 200) AS wide").write().parquet(path);
        assertEquals(4000, spark.read().format("gds").option("spark.ferry.gds.task.arrowLimitBytes", "64m").load(path).collectAsList().size(),
                "a limit the batches fit in reads the file");
        for (String ignore : new String[] {"false", "true"}) {
            SparkSession tight = spark.newSession();
            tight.conf().set("spark.sql.files.ignoreCorruptFiles", ignore);
            Exception refused = assertThrows(Exception.class,
                    () -> tight.read().format("gds").option("spark.ferry.gds.task.arrowLimitBytes", "256k").load(path).collectAsList(),
                    "ignoreCorruptFiles=" + ignore + ": a healthy file whose batch does not fit the limit is an error, not a skipped file");
            String message = ParquetTestingCorpusTestMessages.full(refused);
            assertTrue(message.contains("spark.ferry.gds.task.arrowLimitBytes") && message.contains("wide"), message);
        }
    }

    @Test
    void int96ZoneConversionIsRefusedRatherThanIgnored()
    {
        String impala = dev.ferry.gds.TestingFiles.parquetTesting().resolve("data").resolve("alltypes_plain.parquet").toString();
        SparkSession converting = spark.newSession();
        converting.conf().set("spark.sql.parquet.int96TimestampConversion", "true");
        Exception refused = assertThrows(Exception.class, () -> converting.read().format("gds").load(impala).collectAsList());
        assertTrue(ParquetTestingCorpusTestMessages.full(refused).contains("int96TimestampConversion"), ParquetTestingCorpusTestMessages.full(refused));
        assertEquals(8, converting.read().format("gds").load(impala).select("id").collectAsList().size(), "columns without INT96 still read");
    }

    private static SparkSession ignoringMissing()
    {
        SparkSession session = spark.newSession();
        session.conf().set("spark.sql.files.ignoreMissingFiles", "true");
        return session;
    }

    private static void assertSame(Dataset<Row> ours, Dataset<Row> theirs, String what)
    {
        assertEquals(theirs.schema(), ours.schema(), what);
        List<String> expected = RowRendering.sorted(theirs.collectAsList());
        assertTrue(!expected.isEmpty(), what + ": the oracle returned nothing, so the comparison proves little");
        assertEquals(expected, RowRendering.sorted(ours.collectAsList()), what);
    }
}
