package dev.ferry.gds.spark;

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
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An aggregate with one DISTINCT column over a gds table is split into a GROUP BY of that column that the scan takes
 * ({@link SingleDistinctAggregateSplit}), with exactly the answers of Spark's own reader and plan; what the split cannot
 * give exactly keeps Spark's plan.
 */
class DistinctAggregateSplitTest
        extends GdsSparkTest
{
    @AfterEach
    void resetConf()
    {
        spark.conf().unset("spark.sql.ansi.enabled");
        spark.conf().unset("spark.ferry.gds.aggregatePushdown.splitDistinct");
    }

    @Test
    void oneDistinctColumnBesideOtherAggregatesIsPushedAsAGroupByWithSparksAnswers(@TempDir Path directory)
    {
        String path = mixed(directory, COLUMNS);
        String[] queries = {
                // Issue 21's lineitem-scan shape.
                "SELECT count(*), sum(dec), sum(i), count(str), sum(length(str)), CAST(min(dt) AS VARCHAR(20)), CAST(max(ts) AS VARCHAR(40)), "
                        + "sum(l % 1000), count(DISTINCT mode) FROM t",
                "SELECT count(DISTINCT str), count(*), max(i), min(bool) FROM t",
                "SELECT g, count(DISTINCT b), sum(l), min(str), count(*) FROM t GROUP BY g",
                "SELECT g, bool, count(DISTINCT mode), sum(dec) FROM t GROUP BY g, bool",
                "SELECT count(DISTINCT g), sum(DISTINCT g), min(DISTINCT g), max(DISTINCT g), count(g), count(*) FROM t",
                "SELECT count(DISTINCT dec), sum(DISTINCT dec) FROM t",
                "SELECT count(DISTINCT bool) + 1, count(*) * 2, max(i) - min(i) FROM t",
                "SELECT count(DISTINCT mode), count(*), sum(i) FROM t WHERE i < 1000",
                "SELECT count(DISTINCT mode), count(*), count(*) FROM t",
                "SELECT sum(l % 1000), sum(i % 7), max(l % -7), count(i % 2), count(DISTINCT g) FROM t",
        };
        spark.conf().set("spark.sql.ansi.enabled", "true");
        for (String query : queries) {
            assertSameAsParquet(path, query, true, "split");
        }
        String explained = explain(on(gds(path), queries[0]));
        assertTrue(explained.contains("pushedGroupBy=[mode]"), explained);
        assertTrue(explained.contains("SUM(l % 1000)"), explained);
        // Without ANSI the split stands (a decimal sum's overflow is a null, guarded), but Spark does not hand arithmetic to a source.
        spark.conf().set("spark.sql.ansi.enabled", "false");
        assertSameAsParquet(path, "SELECT count(*), sum(i), count(str), min(dt), count(DISTINCT mode) FROM t", true, "split without ANSI");
        assertSameAsParquet(path, "SELECT sum(dec), count(DISTINCT mode), g FROM t GROUP BY g", true, "decimal sum without ANSI");
        assertSameAsParquet(path, "SELECT sum(l % 1000), count(DISTINCT mode) FROM t", false, "remainder without ANSI");
    }

    @Test
    void anEmptyTableGivesSparksRow(@TempDir Path directory)
    {
        String path = directory.resolve("empty").toString();
        spark.range(0).selectExpr("CAST(id AS INT) AS i", "CAST(id AS STRING) AS str", "CAST(id AS DECIMAL(10, 2)) AS dec").write().parquet(path);
        spark.conf().set("spark.sql.ansi.enabled", "true");
        assertSameAsParquet(path, "SELECT count(*), count(i), sum(i), sum(dec), min(str), count(DISTINCT str) FROM t", true, "empty");
        assertSameAsParquet(path, "SELECT i, count(*), count(DISTINCT str) FROM t GROUP BY i", true, "empty grouped");
    }

    @Test
    void whatTheSplitCannotGiveExactlyKeepsSparksPlan(@TempDir Path directory)
    {
        String path = mixed(directory, COLUMNS);
        String[] refused = {
                "SELECT sum(d), count(DISTINCT g) FROM t",
                "SELECT avg(i), count(DISTINCT g) FROM t",
                "SELECT count(DISTINCT g), count(DISTINCT b) FROM t",
                "SELECT count(DISTINCT g) FILTER (WHERE i > 0), count(*) FROM t",
                "SELECT count(DISTINCT g, b), count(*) FROM t",
                "SELECT count(DISTINCT g + 1), count(*) FROM t",
                "SELECT g + 1, count(DISTINCT b) FROM t GROUP BY g + 1",
                "SELECT g, count(DISTINCT g) FROM t GROUP BY g",
                "SELECT bit_xor(i), count(DISTINCT g) FROM t",
                // Byte and short remainders arrive over a cast to int, which the scan does not evaluate.
                "SELECT sum(b % 3), min(s % 100), count(DISTINCT g) FROM t",
        };
        spark.conf().set("spark.sql.ansi.enabled", "true");
        for (String query : refused) {
            assertSameAsParquet(path, query, false, "refused");
        }
        spark.conf().set("spark.ferry.gds.aggregatePushdown.splitDistinct", "false");
        assertSameAsParquet(path, "SELECT count(*), sum(i), count(DISTINCT g) FROM t", false, "split off");
        spark.conf().unset("spark.ferry.gds.aggregatePushdown.splitDistinct");
        assertEquals(false, explain(on(spark.read().format("gds").option("spark.ferry.gds.aggregatePushdown.splitDistinct", "false").load(path),
                "SELECT count(*), count(DISTINCT g) FROM t")).contains("pushedAggregates="));
        // Another source's plan is never touched: Spark's reader plans DISTINCT its own way.
        String parquetPlan = explain(on(spark.read().parquet(path), "SELECT count(*), count(DISTINCT g) FROM t"));
        assertTrue(parquetPlan.contains("count(distinct g"), parquetPlan);
    }

    @Test
    void aDecimalSumThatOverflowsFailsAsSparksDoes(@TempDir Path directory)
    {
        // DECIMAL(38, 0) sums stay DECIMAL(38, 0): six values of 9e37 overflow it in either plan.
        String path = directory.resolve("overflow").toString();
        spark.range(0, 6, 1, 2).selectExpr("CAST(9e37 AS DECIMAL(38, 0)) AS x", "CAST(id % 3 AS INT) AS k").write().parquet(path);
        spark.conf().set("spark.sql.ansi.enabled", "true");
        String query = "SELECT sum(x), count(DISTINCT k) FROM t";
        Exception ours = assertThrows(Exception.class, () -> on(gds(path), query).collectAsList());
        Exception theirs = assertThrows(Exception.class, () -> on(spark.read().parquet(path), query).collectAsList());
        assertTrue(ParquetTestingCorpusTestMessages.full(ours).contains("ARITHMETIC_OVERFLOW")
                || ParquetTestingCorpusTestMessages.full(ours).contains("NUMERIC_VALUE_OUT_OF_RANGE"), ParquetTestingCorpusTestMessages.full(ours));
        assertTrue(ParquetTestingCorpusTestMessages.full(theirs).contains("ARITHMETIC_OVERFLOW")
                || ParquetTestingCorpusTestMessages.full(theirs).contains("NUMERIC_VALUE_OUT_OF_RANGE"), ParquetTestingCorpusTestMessages.full(theirs));
        // Without ANSI an overflow is a null in both plans: where the whole sum overflows (one value per inner group),
        // and where inner groups overflow (two values each), whose null the outer sum must not skip.
        spark.conf().set("spark.sql.ansi.enabled", "false");
        String perRow = directory.resolve("perRow").toString();
        spark.range(0, 6, 1, 2).selectExpr("CAST(9e37 AS DECIMAL(38, 0)) AS x", "CAST(id AS INT) AS k").write().parquet(perRow);
        for (String file : new String[] {path, perRow}) {
            assertSameAsParquet(file, "SELECT sum(x), count(DISTINCT k), count(*) FROM t", false, "overflow without ANSI");
            assertEquals(null, on(gds(file), "SELECT sum(x), count(DISTINCT k) FROM t").collectAsList().get(0).get(0), file);
        }
        String mixedSigns = directory.resolve("mixedSigns").toString();
        spark.range(0, 6, 1, 2).selectExpr("CAST(9e37 AS DECIMAL(38, 0)) * CASE WHEN id < 3 THEN 1 ELSE -1 END AS x", "CAST(id % 3 AS INT) AS k")
                .write().parquet(mixedSigns);
        assertSameAsParquet(mixedSigns, "SELECT sum(x), count(DISTINCT k) FROM t", false, "no overflow without ANSI");
        spark.conf().set("spark.sql.ansi.enabled", "true");
        // A DECIMAL(12, 2) sum is DECIMAL(22, 2) in Spark; split, it is summed in DECIMAL(32, 2) and cast back: the same values.
        String narrow = directory.resolve("narrow").toString();
        spark.range(0, 3000, 1, 2).selectExpr("CAST(9999999999.99 AS DECIMAL(12, 2)) * CASE WHEN id % 3 = 0 THEN -1 ELSE 1 END AS dec",
                "CAST(id % 7 AS INT) AS k").write().parquet(narrow);
        assertSameAsParquet(narrow, "SELECT sum(dec), count(DISTINCT k), typeof(sum(dec)) FROM t", true, "narrow decimals");
    }
}
