package dev.ferry.gds.spark;

import dev.ferry.gds.RowRendering;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static dev.ferry.gds.spark.AggregateQueries.COLUMNS;
import static dev.ferry.gds.spark.AggregateQueries.assertSameAsParquet;
import static dev.ferry.gds.spark.AggregateQueries.explain;
import static dev.ferry.gds.spark.AggregateQueries.gds;
import static dev.ferry.gds.spark.AggregateQueries.mixed;
import static dev.ferry.gds.spark.AggregateQueries.on;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pushed aggregates give exactly the answers of Spark's own Parquet reader (which Spark aggregates
 * itself), and are pushed only where the scan can compute them.
 */
class AggregatePushdownTest
        extends GdsSparkTest
{
    @AfterEach
    void resetConf()
    {
        spark.conf().unset("spark.sql.ansi.enabled");
        spark.conf().unset("spark.ferry.gds.aggregatePushdown");
        spark.conf().unset("spark.ferry.gds.aggregatePushdown.splitDistinct");
    }

    @Test
    void everyAggregateAndTypeMatchesSparkOverManyRowGroupsAndFiles(@TempDir Path directory)
    {
        String path = mixed(directory, COLUMNS);
        String[] queries = {
                "SELECT count(*), count(i), count(str), count(allnull), count(dn), sum(b), sum(s), sum(i), sum(l), sum(f), sum(d), sum(dec), "
                        + "sum(big), sum(allnull) FROM t",
                "SELECT min(b), max(b), min(s), max(s), min(i), max(i), min(l), max(l), min(f), max(f), min(d), max(d), min(dn), max(dn), "
                        + "min(dec), max(dec), min(big), max(big), min(str), max(str), min(bool), max(bool), min(dt), max(dt), "
                        + "min(ts), max(ts), min(allnull), max(allnull) FROM t",
                "SELECT avg(i), avg(d), avg(dec), avg(b), avg(f), avg(s), sum(l) FROM t",
                "SELECT max(i) + 1, max(i) * 2, count(*) - count(i) FROM t",
                "SELECT g, count(*), sum(i), min(str), max(d), avg(dec), max(ts) FROM t GROUP BY g",
                "SELECT str, bool, count(*), sum(l) FROM t GROUP BY str, bool",
                "SELECT d, count(*), min(i) FROM t GROUP BY d",
                "SELECT f, count(*) FROM t GROUP BY f",
                "SELECT dec, dt, max(str) FROM t GROUP BY dec, dt",
                "SELECT big, b, sum(dec) FROM t GROUP BY big, b",
                "SELECT allnull, count(*), sum(i) FROM t GROUP BY allnull",
                "SELECT ts, count(*) FROM t GROUP BY ts",
                "SELECT b, count(*), sum(i), max(f) FROM t GROUP BY b",
                "SELECT i, count(*), min(dt) FROM t GROUP BY i",
                "SELECT bool, count(*), sum(s) FROM t GROUP BY bool",
                "SELECT sum(length(str)), min(length(str)), max(length(str)), count(length(str)), sum(CASE WHEN bool THEN 1 ELSE 0 END), "
                        + "count(CASE WHEN bool THEN 1 END), sum(CASE WHEN bool = false THEN 2 WHEN bool THEN 5 ELSE -1 END), "
                        + "max(CASE WHEN bool THEN 7L ELSE NULL END) FROM t",
                "SELECT g, sum(length(str)), sum(CASE WHEN bool THEN 1 ELSE 0 END) FROM t GROUP BY g",
                "SELECT sum(CASE WHEN NOT bool THEN 1 ELSE 0 END), sum(CASE WHEN NOT (bool = false) THEN 1 END) FROM t",
        };
        for (String ansi : new String[] {"true", "false"}) {
            spark.conf().set("spark.sql.ansi.enabled", ansi);
            for (String query : queries) {
                assertSameAsParquet(path, query, true, "ANSI " + ansi);
            }
        }
    }

    @Test
    void caseWhenOverColumnEqualsLiteralMatchesSpark(@TempDir Path directory)
    {
        String path = mixed(directory, COLUMNS);
        // str: nulls, non-ASCII, 's<n>'; g, i: ints with nulls; dt: dates; dec: DECIMAL(12, 2) with nulls; l: bigint.
        String[] queries = {
                "SELECT sum(CASE WHEN str = 'Z' THEN 1 ELSE 0 END), sum(CASE WHEN 'é' = str THEN 1 ELSE 0 END), "
                        + "sum(CASE WHEN str = 'no such value' THEN 1 ELSE 0 END), count(CASE WHEN str = 's17' THEN 1 END), "
                        + "sum(CASE WHEN str = '' THEN 1 ELSE 0 END) FROM t",
                "SELECT sum(CASE WHEN str = 'Z' THEN 1 WHEN str = '中文' THEN 10 WHEN g = 2 THEN 100 ELSE NULL END), "
                        + "max(CASE WHEN i = 7 THEN 3L WHEN dt = DATE '2020-01-05' THEN 4L END), "
                        + "min(CASE WHEN g = 1 THEN 5 WHEN g = 1 THEN 6 ELSE -1 END), count(CASE WHEN g = 3 THEN 1 END) FROM t",
                "SELECT sum(CASE WHEN dt = DATE '2020-03-01' THEN 1 ELSE 0 END), sum(CASE WHEN dt = DATE '1999-01-01' THEN 1 ELSE 0 END), "
                        + "sum(CASE WHEN l = 997500000 THEN 1 ELSE 0 END), sum(CASE WHEN i = 31 - 50000 THEN 1 ELSE 0 END), "
                        + "sum(CASE WHEN dec = -28766.00 THEN 1 ELSE 0 END), sum(CASE WHEN bool = true THEN 1 ELSE 0 END) FROM t",
                "SELECT sum(CASE WHEN str IN ('Z', 'é', 's1', 's17') THEN 1 ELSE 0 END), sum(CASE WHEN g IN (1, 3) THEN 2 ELSE 0 END), "
                        + "sum(CASE WHEN str NOT IN ('Z', 's1') THEN 1 ELSE 0 END), sum(CASE WHEN g <> 1 THEN 1 ELSE 0 END), "
                        + "sum(CASE WHEN NOT (str = 'Z') THEN 1 ELSE 0 END), sum(CASE WHEN dt IN (DATE '2020-01-01', DATE '2020-01-02') THEN 1 END) FROM t",
                "SELECT g, sum(CASE WHEN str = 'Z' THEN 1 ELSE 0 END), sum(CASE WHEN i = 31 - 50000 THEN 1 WHEN str = 's17' THEN 2 END) FROM t GROUP BY g",
                "SELECT sum(length(str)), max(str), sum(CASE WHEN str = 's17' THEN 1 ELSE 0 END), max(dt) FROM t",
                // Literals of another type: Spark folds or unwraps the cast (UnwrapCastInBinaryComparison), so they arrive in the column's type.
                "SELECT sum(CASE WHEN b = 5 THEN 1 ELSE 0 END), sum(CASE WHEN s = -14993 THEN 1 ELSE 0 END), sum(CASE WHEN dt = '2020-01-05' THEN 1 ELSE 0 END), "
                        + "sum(CASE WHEN dec = -28766 THEN 1 ELSE 0 END), sum(CASE WHEN i = -49969L THEN 1 ELSE 0 END) FROM t",
        };
        for (String ansi : new String[] {"true", "false"}) {
            spark.conf().set("spark.sql.ansi.enabled", ansi);
            for (String query : queries) {
                assertSameAsParquet(path, query, true, "ANSI " + ansi);
            }
        }
        String explained = explain(on(gds(path), "SELECT sum(CASE WHEN str = 'it''s' THEN 1 WHEN dt = DATE '2020-01-05' THEN 2 "
                + "WHEN g IN (1, 2) THEN 3 WHEN NOT (str = 'Z') THEN 4 ELSE 0 END) FROM t"));
        assertTrue(explained.contains("pushedAggregates=[SUM(CASE WHEN str = 'it''s' THEN 1 WHEN dt = DATE '2020-01-05' THEN 2 "
                + "WHEN g IN (1, 2) THEN 3 WHEN NOT (str = 'Z') THEN 4 ELSE 0 END)]"), explained);
        // The same answers with pushdown off.
        spark.conf().set("spark.ferry.gds.aggregatePushdown", "false");
        assertSameAsParquet(path, queries[1], false, "pushdown off");
    }

    @Test
    void caseWhenTestsWhoseEqualityIsNotBytesOrArriveCastAreLeftToSpark(@TempDir Path directory)
    {
        String path = mixed(directory, COLUMNS);
        String[] refused = {
                "SELECT sum(CASE WHEN str COLLATE UTF8_LCASE = 'z' THEN 1 ELSE 0 END) FROM t",
                "SELECT sum(CASE WHEN CAST(i AS STRING) = '7' THEN 1 ELSE 0 END) FROM t",
                "SELECT sum(CASE WHEN d = 1.5 THEN 1 ELSE 0 END) FROM t",
                "SELECT sum(CASE WHEN f = 1.5 THEN 1 ELSE 0 END) FROM t",
                "SELECT sum(CASE WHEN ts = TIMESTAMP '2020-09-13 12:26:40' THEN 1 ELSE 0 END) FROM t",
                "SELECT sum(CASE WHEN big = 123456789.123 THEN 1 ELSE 0 END) FROM t",
                "SELECT sum(CASE WHEN str = NULL THEN 1 ELSE 0 END), sum(CASE WHEN i = g THEN 1 ELSE 0 END) FROM t",
                "SELECT sum(CASE WHEN str <=> 'Z' THEN 1 ELSE 0 END) FROM t",
        };
        for (String query : refused) {
            assertSameAsParquet(path, query, false, "refused");
        }
        // A column whose collation is not UTF8_BINARY: its equality is not byte equality ('A1' = 'a1').
        String collated = directory.resolve("collated").toString();
        spark.range(0, 300, 1, 2).selectExpr("CAST(concat(CASE WHEN id % 2 = 0 THEN 'a' ELSE 'A' END, CAST(id % 3 AS STRING)) AS STRING COLLATE UTF8_LCASE) AS c")
                .write().parquet(collated);
        assertSameAsParquet(collated, "SELECT sum(CASE WHEN c = 'A1' THEN 1 ELSE 0 END) FROM t", false, "collated");
    }

    @Test
    void countStarAloneIsAnsweredFromRowCounts(@TempDir Path directory)
    {
        String path = mixed(directory, COLUMNS);
        ScanMetrics.Result result = ScanMetrics.collect(gds(path).selectExpr("count(*)"));
        assertEquals(1, result.rows().size());
        assertEquals(3003L, result.rows().get(0).getLong(0));
        assertTrue(result.metric("rowGroupsFromMetadata") > 3, result.metrics().toString());
        assertEquals(0, result.metric("hostBytes"), result.metrics().toString());
        assertTrue(explain(gds(path).selectExpr("count(*)")).contains("from row-group row counts"));
        // Anything else reads the pages.
        ScanMetrics.Result decoded = ScanMetrics.collect(gds(path).selectExpr("count(*)", "count(i)"));
        assertEquals(0, decoded.metric("rowGroupsFromMetadata"));
        assertTrue(decoded.metric("hostBytes") > 0);
    }

    @Test
    void countFromRowCountsStillNoticesFilesMissingSincePlanning(@TempDir Path directory)
            throws java.io.IOException
    {
        String path = directory.resolve("missing").toString();
        spark.range(0, 3000, 1, 3).selectExpr("id").write().parquet(path);
        Dataset<Row> ours = gds(path);
        Dataset<Row> theirs = spark.read().parquet(path);
        Dataset<Row> oursIgnoring = spark.read().format("gds").option("ignoreMissingFiles", "true").load(path);
        Dataset<Row> theirsIgnoring = spark.read().option("ignoreMissingFiles", "true").parquet(path);
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(directory.resolve("missing"))) {
            java.nio.file.Files.delete(files.filter(file -> file.toString().endsWith(".parquet")).findFirst().orElseThrow());
        }
        assertTrue(pushed(oursIgnoring, "SELECT count(*) FROM t"));
        assertEquals(RowRendering.sorted(on(theirsIgnoring, "SELECT count(*) FROM t").collectAsList()),
                RowRendering.sorted(on(oursIgnoring, "SELECT count(*) FROM t").collectAsList()));
        assertThrows(Exception.class, () -> on(theirs, "SELECT count(*) FROM t").collectAsList());
        assertThrows(Exception.class, () -> on(ours, "SELECT count(*) FROM t").collectAsList());
    }

    @Test
    void emptyInputGivesSparksRowForEmptyInput(@TempDir Path directory)
    {
        String path = directory.resolve("empty").toString();
        spark.range(0).selectExpr("CAST(id AS INT) AS i", "CAST(id AS DOUBLE) AS d", "CAST(id AS STRING) AS str").write().parquet(path);
        assertSameAsParquet(path, "SELECT count(*), count(i), sum(i), sum(d), min(str), avg(i) FROM t", true, "empty");
        assertSameAsParquet(path, "SELECT count(*) FROM t", true, "empty");
        assertSameAsParquet(path, "SELECT i, count(*) FROM t GROUP BY i", true, "empty");
    }

    @Test
    void negativeZeroAndNaNOrderAsSparks(@TempDir Path directory)
    {
        String[] orders = {"0.0D, -0.0D", "-0.0D, 0.0D", "CAST('NaN' AS DOUBLE), 1.0D, -0.0D", "-0.0D, CAST('NaN' AS DOUBLE), 0.0D"};
        for (int index = 0; index < orders.length; index++) {
            String path = directory.resolve("zeros" + index).toString();
            spark.sql("SELECT x, CAST(x AS FLOAT) AS y FROM VALUES " + String.join(", ", java.util.Arrays.stream(orders[index].split(", "))
                    .map(value -> "(" + value + ")").toArray(String[]::new)) + " AS v(x)").coalesce(1).write().parquet(path);
            assertSameAsParquet(path, "SELECT max(x), min(x), sum(x), max(y), min(y), sum(y) FROM t", true, orders[index]);
        }
    }

    @Test
    void partitionColumnsAsKeysAndInputs(@TempDir Path directory)
    {
        String path = directory.resolve("partitioned").toString();
        spark.range(0, 2000, 1, 3)
                .selectExpr("id", "CASE WHEN id % 4 = 0 THEN NULL ELSE CAST(id % 3 AS INT) END AS p", "CASE WHEN id % 5 = 0 THEN 'x' ELSE 'y' END AS q",
                        "CAST(id * 0.5 AS DOUBLE) AS v")
                .write().partitionBy("p", "q").parquet(path);
        String[] queries = {
                "SELECT p, count(*), sum(id), max(v) FROM t GROUP BY p",
                "SELECT q, p, min(id) FROM t GROUP BY q, p",
                "SELECT count(p), sum(p), max(p), min(q), max(q), count(*) FROM t",
                "SELECT count(*) FROM t GROUP BY q",
                "SELECT p, sum(CASE WHEN q = 'x' THEN 1 ELSE 0 END), count(CASE WHEN p = 1 THEN 1 END) FROM t GROUP BY p",
        };
        for (String query : queries) {
            assertSameAsParquet(path, query, true, "partitioned");
        }
    }

    @Test
    void sumsNeverOverflowPartiallyAndOverflowAsSparkDoes(@TempDir Path directory)
    {
        // Decimal partials are cast back to DECIMAL(12, 2) by Spark: thousands of maximal values force many spilled partials.
        String decimals = directory.resolve("decimals").toString();
        spark.range(0, 3000, 1, 2).selectExpr("CAST(9999999999.99 AS DECIMAL(12, 2)) * CASE WHEN id % 3 = 0 THEN -1 ELSE 1 END AS dec",
                "CAST(id % 2 AS INT) AS k").write().parquet(decimals);
        // Long sums past Long.MAX_VALUE.
        String longs = directory.resolve("longs").toString();
        spark.range(0, 6, 1, 1).selectExpr("9223372036854775000 AS l", "CAST(id % 2 AS INT) AS k").write().parquet(longs);
        for (String ansi : new String[] {"true", "false"}) {
            spark.conf().set("spark.sql.ansi.enabled", ansi);
            assertSameAsParquet(decimals, "SELECT sum(dec), avg(dec), count(dec) FROM t", true, "decimals ANSI " + ansi);
            assertSameAsParquet(decimals, "SELECT k, sum(dec) FROM t GROUP BY k", true, "decimals ANSI " + ansi);
        }
        spark.conf().set("spark.sql.ansi.enabled", "false");
        // Spark's split AVG would sum BIGINT where its AVG sums DOUBLE: not pushed.
        assertSameAsParquet(longs, "SELECT avg(l) FROM t", false, "long average");
        assertSameAsParquet(longs, "SELECT k, avg(l), sum(l) FROM t GROUP BY k", false, "long average");
        assertSameAsParquet(longs, "SELECT sum(l) FROM t", true, "longs wrap without ANSI");
        assertSameAsParquet(longs, "SELECT k, sum(l) FROM t GROUP BY k", true, "longs wrap without ANSI");
        spark.conf().set("spark.sql.ansi.enabled", "true");
        for (String query : new String[] {"SELECT sum(l) FROM t", "SELECT k, sum(l) FROM t GROUP BY k"}) {
            assertTrue(pushed(gds(longs), query));
            Exception ours = assertThrows(Exception.class, () -> on(gds(longs), query).collectAsList());
            Exception theirs = assertThrows(Exception.class, () -> on(spark.read().parquet(longs), query).collectAsList());
            assertTrue(ParquetTestingCorpusTestMessages.full(ours).contains("ARITHMETIC_OVERFLOW"), ParquetTestingCorpusTestMessages.full(ours));
            assertTrue(ParquetTestingCorpusTestMessages.full(theirs).contains("ARITHMETIC_OVERFLOW"), ParquetTestingCorpusTestMessages.full(theirs));
        }
    }

    @Test
    void whatTheScanCannotComputeExactlyIsLeftToSpark(@TempDir Path directory)
    {
        String path = mixed(directory, COLUMNS);
        String[] refused = {
                // DISTINCT is never offered to the scan; DistinctAggregateSplitTest shows it split into a pushed GROUP BY.
                "SELECT count(DISTINCT i) FROM t",
                "SELECT sum(DISTINCT i) FROM t",
                "SELECT sum(i + 1) FROM t",
                "SELECT g + 1, count(*) FROM t GROUP BY g + 1",
                // Filters Spark re-applies above the scan (timestamps are not evaluated by the row filter; see ExactFilterPushdownTest).
                "SELECT count(*), sum(i) FROM t WHERE ts > TIMESTAMP '2020-09-13 12:27:00'",
                "SELECT count(*) FROM t WHERE i > g",
                "SELECT stddev(d) FROM t",
                "SELECT max(i) FILTER (WHERE g = 1) FROM t",
                "SELECT max(str COLLATE UTF8_LCASE) FROM t",
                "SELECT sum(length(str) + 1) FROM t",
                "SELECT sum(CASE WHEN bool AND g = 1 THEN 1 ELSE 0 END) FROM t",
                "SELECT sum(CASE WHEN i > 0 THEN 1 ELSE 0 END) FROM t",
                "SELECT sum(CASE WHEN bool THEN i ELSE 0 END) FROM t",
                "SELECT length(str), count(*) FROM t GROUP BY length(str)",
        };
        spark.conf().set("spark.ferry.gds.aggregatePushdown.splitDistinct", "false");
        for (String query : refused) {
            assertSameAsParquet(path, query, false, "refused");
        }
        spark.conf().unset("spark.ferry.gds.aggregatePushdown.splitDistinct");
        spark.conf().set("spark.ferry.gds.aggregatePushdown", "false");
        assertSameAsParquet(path, "SELECT count(*), sum(i) FROM t", false, "pushdown off");
        assertFalse(pushed(spark.read().format("gds").option("spark.ferry.gds.aggregatePushdown", "false").load(path), "SELECT count(*) FROM t"));
    }

    @Test
    void explainNamesThePushedAggregatesAndGroupBy(@TempDir Path directory)
    {
        String path = mixed(directory, COLUMNS);
        String explained = explain(on(gds(path), "SELECT g, count(*), sum(i), avg(dec), max(str) FROM t GROUP BY g"));
        // Spark splits AVG into COUNT and SUM for a source that does not take it whole.
        assertTrue(explained.contains("pushedAggregates=[COUNT(*), SUM(i), COUNT(dec), SUM(dec), MAX(str)] pushedGroupBy=[g]"), explained);
    }

    private static boolean pushed(Dataset<Row> table, String query)
    {
        return explain(on(table, query)).contains("pushedAggregates=");
    }
}
