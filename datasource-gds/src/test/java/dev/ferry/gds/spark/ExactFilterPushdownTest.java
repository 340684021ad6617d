package dev.ferry.gds.spark;

import dev.ferry.gds.RowRendering;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static dev.ferry.gds.spark.AggregateQueries.assertSameAsParquet;
import static dev.ferry.gds.spark.AggregateQueries.explain;
import static dev.ferry.gds.spark.AggregateQueries.gds;
import static dev.ferry.gds.spark.AggregateQueries.mixed;
import static dev.ferry.gds.spark.AggregateQueries.on;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Filters the scan evaluates exactly are not re-applied by Spark (spark.ferry.gds.filter.exact), so
 * aggregates are pushed under them: every answer equals Spark's own reader's (which filters and
 * aggregates itself), over files of many row groups, and the plans show what was pushed.
 */
class ExactFilterPushdownTest
        extends GdsSparkTest
{
    // Nulls in most columns, NaN and -0.0 among the doubles, strings beyond ASCII.
    private static final String[] COLUMNS = {
            "CASE WHEN id % 11 = 0 THEN NULL ELSE CAST(id % 5 AS INT) END AS g",
            "CASE WHEN id % 7 = 0 THEN NULL ELSE CAST(id * 31 % 100000 - 50000 AS INT) END AS i",
            "id * 1000003 - 2500000000 AS l",
            "CASE WHEN id = 5 THEN CAST('-0.0' AS DOUBLE) WHEN id = 6 THEN 0.0D WHEN id = 123 THEN CAST('NaN' AS DOUBLE) "
                    + "WHEN id % 17 = 0 THEN NULL ELSE (id % 200) * 0.5 - 50.0 END AS d",
            "CASE WHEN id % 19 = 0 THEN NULL ELSE CAST((id % 400) * 0.01 - 2 AS DECIMAL(15, 2)) END AS dec",
            "CASE WHEN id % 9 = 0 THEN NULL WHEN id = 40 THEN 'é' WHEN id = 41 THEN '中文' WHEN id = 42 THEN 'Z' "
                    + "ELSE concat('s', CAST(id * 17 % 1000 AS STRING)) END AS str",
            "date_add(DATE '2020-01-01', CAST(id % 1000 AS INT)) AS dt",
            "CASE WHEN id % 23 = 0 THEN NULL ELSE timestamp_micros(1600000000000000 + id * 1000003) END AS ts",
    };

    @AfterEach
    void resetConf()
    {
        spark.conf().unset("spark.sql.ansi.enabled");
        spark.conf().unset("spark.ferry.gds.filter.exact");
    }

    @Test
    void aggregatesUnderExactFiltersMatchSpark(@TempDir Path directory)
    {
        String path = mixed(directory, COLUMNS);
        String[] queries = {
                // decimal, at the column's scale and finer than it
                "SELECT count(*), sum(i), sum(dec), min(str) FROM t WHERE dec < 1.00",
                "SELECT count(*), sum(dec), max(dec) FROM t WHERE dec >= -0.50",
                "SELECT count(*), sum(l) FROM t WHERE dec = 0.25",
                // an integer literal against the decimal column (the benchmark's q4-filtered shape)
                "SELECT count(*), sum(l), max(str) FROM t WHERE dec < 1",
                // int, long, double (-0.0 equals 0.0, NaN above everything), date, string
                "SELECT count(*), sum(dec), max(str) FROM t WHERE i > 0",
                "SELECT count(*), min(i) FROM t WHERE l >= 997500000",
                "SELECT count(*), sum(i) FROM t WHERE d > 10.0",
                "SELECT count(*), sum(i) FROM t WHERE d = 0.0",
                "SELECT count(*), sum(l) FROM t WHERE d > 40.0",
                "SELECT count(*), sum(i), max(dt) FROM t WHERE dt < DATE '2020-06-01'",
                "SELECT count(*), sum(i) FROM t WHERE str > 's5'",
                "SELECT count(*), sum(l) FROM t WHERE str IN ('Z', 'é', 's17')",
                "SELECT count(*), max(str) FROM t WHERE str LIKE 's1%'",
                // AND, OR, NOT, null tests
                "SELECT count(*), sum(dec) FROM t WHERE (i > 0 OR str = 'Z') AND NOT (g = 1)",
                "SELECT count(*), sum(i) FROM t WHERE NOT (dec > 0 AND i < 0)",
                "SELECT count(*), sum(l) FROM t WHERE dec IS NULL",
                "SELECT count(*), sum(l), count(dec) FROM t WHERE i IS NOT NULL AND str IS NULL",
                "SELECT count(*) FROM t WHERE g IS NULL OR dec <= -1.00",
                // filters on columns not selected, COUNT(*) alone
                "SELECT count(*) FROM t WHERE dec > 0",
                "SELECT sum(l) FROM t WHERE str = 'Z'",
                // GROUP BY with a filter
                "SELECT g, count(*), sum(dec), max(str), min(d) FROM t WHERE dec < 1.00 GROUP BY g",
                "SELECT str, count(*) FROM t WHERE i < 0 AND dt >= DATE '2020-03-01' GROUP BY str",
                "SELECT g, count(*), sum(i) FROM t WHERE g > 1 OR g IS NULL GROUP BY g",
                "SELECT count(*), sum(DEC) FROM t WHERE DEC < 1.00 AND Str > 's2'",
                // a filter that removes every row: COUNT 0, the other aggregates null; no group
                "SELECT count(*), sum(i), sum(dec), max(str) FROM t WHERE i > 1000000",
                "SELECT count(*) FROM t WHERE dec > 99999",
                "SELECT g, count(*), sum(i) FROM t WHERE i > 1000000 GROUP BY g",
        };
        for (String ansi : new String[] {"true", "false"}) {
            spark.conf().set("spark.sql.ansi.enabled", ansi);
            for (String query : queries) {
                assertSameAsParquet(path, query, true, "ANSI " + ansi);
            }
        }
        // Dates as java.time.LocalDate literals.
        spark.conf().set("spark.sql.datetime.java8API.enabled", "true");
        try {
            assertSameAsParquet(path, "SELECT count(*), sum(i) FROM t WHERE dt >= DATE '2020-06-01' AND dt < DATE '2021-01-01'", true, "java8API");
        }
        finally {
            spark.conf().unset("spark.sql.datetime.java8API.enabled");
        }
        String explained = explain(on(gds(path), "SELECT count(*), sum(i) FROM t WHERE dec < 1.00 AND str IS NOT NULL"));
        assertTrue(explained.contains("exactFilters=[") && explained.contains("LessThan(dec,1.00)") && explained.contains("IsNotNull(str)"), explained);
        assertTrue(explained.contains("of the rows the exact filters keep"), explained);
        assertFalse(explained.contains("from row-group row counts"), explained);
    }

    @Test
    void literalsFinerThanTheColumnsScaleMatchSpark(@TempDir Path directory)
    {
        String path = mixed(directory, COLUMNS);
        // Spark's optimizer rewrites these to the column's scale (dec < 1.005 arrives as dec < 1.01, dec = 0.255 as no rows at all);
        // DecimalRowFilterEvaluationTest checks the row filter on such literals directly.
        assertSameAsParquet(path, "SELECT count(*), sum(dec) FROM t WHERE dec < 1.005", true, "finer literal");
        assertSameAsParquet(path, "SELECT count(*), sum(dec) FROM t WHERE dec > -0.995", true, "finer literal");
        String query = "SELECT count(*), sum(dec) FROM t WHERE dec = 0.255";
        assertEquals(RowRendering.sorted(on(spark.read().parquet(path), query).collectAsList()), RowRendering.sorted(on(gds(path), query).collectAsList()), query);
    }

    @Test
    void rowsUnderExactFiltersMatchSparkWithTheFilterColumnPruned(@TempDir Path directory)
    {
        String path = mixed(directory, COLUMNS);
        String[] queries = {
                "SELECT str, i FROM t WHERE dec < 1.00",
                "SELECT l FROM t WHERE (i > 0 OR str = 'Z') AND dt < DATE '2020-06-01'",
                "SELECT * FROM t WHERE d = 0.0 OR d > 40.0",
                "SELECT g FROM t WHERE i > 1000000",
        };
        for (String query : queries) {
            List<String> expected = RowRendering.sorted(on(spark.read().parquet(path), query).collectAsList());
            Dataset<Row> ours = on(gds(path), query);
            String explained = explain(ours);
            assertFalse(explained.contains("Filter "), "no filter left above the scan: " + explained);
            assertEquals(expected, RowRendering.sorted(ours.collectAsList()), query);
        }
    }

    @Test
    void filtersNotEvaluatedExactlyStayAboveTheScan(@TempDir Path directory)
    {
        String path = mixed(directory, COLUMNS);
        String[] queries = {
                // timestamps are not evaluated by the row filter
                "SELECT count(*), sum(i) FROM t WHERE ts > TIMESTAMP '2020-09-13 12:27:00'",
                // one exact filter and one not: the other keeps the aggregate above the scan
                "SELECT count(*), sum(i) FROM t WHERE i > 0 AND ts > TIMESTAMP '2020-09-13 12:27:00'",
                // not a filter the row filter reads
                "SELECT count(*) FROM t WHERE str LIKE '%7'",
                "SELECT count(*) FROM t WHERE i > g",
        };
        for (String query : queries) {
            assertSameAsParquet(path, query, false, "not exact");
        }
        // A column whose collation is not UTF8_BINARY: its comparisons are not byte comparisons.
        String collated = directory.resolve("collated").toString();
        spark.range(0, 300, 1, 2).selectExpr("CAST(concat(CASE WHEN id % 2 = 0 THEN 'a' ELSE 'A' END, CAST(id % 3 AS STRING)) AS STRING COLLATE UTF8_LCASE) AS c",
                "id").write().parquet(collated);
        assertSameAsParquet(collated, "SELECT count(*), sum(id) FROM t WHERE c = 'A1'", false, "collated");
        spark.conf().set("spark.ferry.gds.filter.exact", "false");
        for (String query : new String[] {"SELECT count(*), sum(i) FROM t WHERE i > 0", "SELECT count(*) FROM t WHERE dec < 1.00"}) {
            assertSameAsParquet(path, query, false, "filter.exact=false");
            assertTrue(explain(on(gds(path), query)).contains("exactFilters=[]"));
        }
        spark.conf().unset("spark.ferry.gds.filter.exact");
        Dataset<Row> optionOff = spark.read().format("gds").option("spark.ferry.gds.filter.exact", "false").load(path);
        assertFalse(explain(on(optionOff, "SELECT count(*) FROM t WHERE i > 0")).contains("pushedAggregates="));
    }

    @Test
    void partitionColumnFiltersStayAboveTheScan(@TempDir Path directory)
    {
        String path = directory.resolve("partitioned").toString();
        spark.range(0, 2000, 1, 3)
                .selectExpr("id", "CAST(id % 3 AS INT) AS p", "CAST(id * 0.5 AS DOUBLE) AS v")
                .write().partitionBy("p").parquet(path);
        assertSameAsParquet(path, "SELECT count(*), sum(v) FROM t WHERE p = 1", false, "partition filter");
        assertSameAsParquet(path, "SELECT count(*), sum(v) FROM t WHERE p = 1 AND id > 100", false, "partition and data filter");
        assertSameAsParquet(path, "SELECT p, count(*), sum(v) FROM t WHERE id > 100 GROUP BY p", true, "data filter, partition key");
    }
}
