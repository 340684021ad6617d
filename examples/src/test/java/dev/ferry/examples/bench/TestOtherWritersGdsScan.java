package dev.ferry.examples.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every writer's copy of the lineitem table in {@link WriterCorpus} (Spark, parquet-mr with data page
 * v2, DuckDB) reads through {@code gds} exactly as {@code spark.read.parquet} reads it: every row and
 * the answer of issue 21's query (the benchmark runs the other queries on its larger copy).
 */
class TestOtherWritersGdsScan
{
    // Over one DuckDB row group (122,880 rows) so its file has two, the second a short one.
    private static final long ROWS = 125_000;

    @TempDir
    static Path directory;

    private static SparkSession spark;
    private static Path corpus;

    @BeforeAll
    static void writeCorpus()
            throws Exception
    {
        spark = SparkSession.builder().master("local[2]").appName("test-other-writers")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.sql.session.timeZone", "UTC")
                .config("spark.sql.warehouse.dir", directory.resolve("warehouse").toString())
                .getOrCreate();
        corpus = WriterCorpus.generate(spark, directory, ROWS);
    }

    @AfterAll
    static void stop()
    {
        if (spark != null) {
            spark.stop();
        }
    }

    @Test
    void everyWritersRowsAndAnswersMatchSparksReader()
    {
        String[] query = WriterCorpus.QUERIES.get(0);
        List<String> firstAnswer = null;
        for (String writer : WriterCorpus.WRITERS) {
            Path data = corpus.resolve(writer);
            Dataset<Row> gds = spark.read().format("gds").load(data.toString());
            Dataset<Row> parquet = spark.read().parquet(data.toString());
            assertEquals(parquet.schema(), gds.schema(), writer);
            List<String> ours = rendered(gds.collectAsList());
            List<String> theirs = rendered(parquet.collectAsList());
            assertEquals(ROWS, theirs.size(), writer);
            assertTrue(ours.equals(theirs), writer + ": rows differ, first gds row " + firstDifference(ours, theirs));

            gds.createOrReplaceTempView("lineitem");
            List<String> ourAnswer = rendered(spark.sql(query[1]).collectAsList());
            parquet.createOrReplaceTempView("lineitem");
            assertEquals(rendered(spark.sql(query[1]).collectAsList()), ourAnswer, writer + " " + query[0]);
            // Every writer holds the same rows.
            if (firstAnswer == null) {
                firstAnswer = ourAnswer;
            }
            assertEquals(firstAnswer, ourAnswer, writer + " vs " + WriterCorpus.WRITERS.get(0));
        }
    }

    private static String firstDifference(List<String> ours, List<String> theirs)
    {
        for (int index = 0; index < Math.min(ours.size(), theirs.size()); index++) {
            if (!ours.get(index).equals(theirs.get(index))) {
                return ours.get(index) + " vs " + theirs.get(index);
            }
        }
        return "(" + ours.size() + " rows vs " + theirs.size() + ")";
    }

    private static List<String> rendered(List<Row> rows)
    {
        List<String> strings = new ArrayList<>(rows.size());
        for (Row row : rows) {
            strings.add(row.toString());
        }
        strings.sort(null);
        return strings;
    }
}
