package dev.ferry.gds.spark;

import dev.ferry.gds.RowRendering;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The scan drops rows its pushed filters reject (row filter), and every answer stays exactly Spark's
 * own reader's, for filters over every evaluated type with nulls, NaN and signed zeros, with
 * NOT/OR/AND around them and with filters it cannot evaluate mixed in.
 */
class RowFilterTest
        extends GdsSparkTest
{
    private static final int ROWS = 20_000;

    // Filters the row filter evaluates completely: exactly the rows Spark rejects are dropped in the scan.
    private static final String[] EXACT = {
            "i < 100",
            "i >= 500 AND i < 510",
            "i = 7 OR i IS NULL",
            "i IN (1, 2, 3)",
            "NOT (i IN (1, 2, 3))",
            "i <=> 5",
            "NOT (i <=> 5)",
            "i IS NOT NULL AND id > 19000",
            "d > 0.5",
            "d = 0.0",
            "d = CAST('NaN' AS DOUBLE)",
            "d > 0.9 OR d IS NULL",
            "NOT (d < 0.5)",
            "f <= 1.5",
            "s = 'v42'",
            "s > 'v9'",
            "s LIKE 'v1%'",
            "s < 'é' AND s >= 'v19'",
            "b",
            "NOT b",
            "b IS NULL",
            "dt >= DATE '2021-01-01'",
            "dt = DATE '2020-01-05'",
            "NOT (i > 10 AND s = 'v3')",
            "NOT (i > 10 OR d IS NULL)",
            "i > 10 AND NOT (s LIKE 'v1%')",
            "sh < 3 AND tiny > 1",
    };

    // Filters with parts it cannot evaluate (decimals, timestamps, expressions Spark does not push): it may keep extra rows.
    private static final String[] PARTIAL = {
            "dec > 10.5 AND i < 300",
            "ts > TIMESTAMP '2020-01-01 00:00:05' OR i < 5",
            "id % 7 = 0 AND i < 1000",
            "length(s) > 2 AND i < 50",
            "NOT (dec > 10.5 AND i < 300)",
            "st.a < 100 AND i < 9000",
            "size(arr) = 2 AND i > 15000",
    };

    @Test
    void scanDropsExactlyTheRejectedRowsAndAnswersStayTheSame(@TempDir java.nio.file.Path directory)
    {
        String path = directory.resolve("data").toString();
        spark.range(0, ROWS, 1, 2)
                .selectExpr("id",
                        "CASE WHEN id % 11 = 0 THEN NULL ELSE CAST(id % 1000 AS INT) END AS i",
                        "CASE WHEN id % 13 = 0 THEN NULL WHEN id % 17 = 0 THEN CAST('NaN' AS DOUBLE) WHEN id % 19 = 0 THEN -0.0D "
                                + "WHEN id % 23 = 0 THEN 0.0D ELSE (id % 1000) / 1000.0D END AS d",
                        "CAST((id % 40) / 10.0 AS FLOAT) AS f",
                        "CASE WHEN id % 7 = 0 THEN NULL WHEN id % 29 = 0 THEN 'été' ELSE concat('v', CAST(id % 3000 AS STRING)) END AS s",
                        "CASE WHEN id % 5 = 0 THEN NULL ELSE id % 3 = 0 END AS b",
                        "date_add(DATE '2020-01-01', CAST(id % 900 AS INT)) AS dt",
                        "CAST((id % 2000) / 100.0 AS DECIMAL(10, 2)) AS dec",
                        "timestamp_seconds(1577836800 + id % 100) AS ts",
                        "CAST(id % 10 AS SHORT) AS sh",
                        "CAST(id % 4 AS BYTE) AS tiny",
                        "named_struct('a', id, 'b', concat('x', CAST(id AS STRING))) AS st",
                        "CASE WHEN id % 3 = 0 THEN NULL ELSE array(id, id + 1) END AS arr")
                .write().option("parquet.block.size", "65536").parquet(path);

        SparkSession unfiltered = spark.newSession();
        unfiltered.conf().set("spark.ferry.gds.rowFilter", "false");
        for (String filter : EXACT) {
            ScanMetrics.Result filtered = ScanMetrics.collect(spark.read().format("gds").load(path).where(filter));
            List<String> expected = RowRendering.sorted(spark.read().parquet(path).where(filter).collectAsList());
            assertEquals(expected, RowRendering.sorted(filtered.rows()), filter);
            // Rows in row groups that statistics skipped are not counted as filtered, but never come out either.
            assertEquals(expected.size(), filtered.metric("numOutputRows"), filter + ": " + filtered.metrics());
            ScanMetrics.Result kept = ScanMetrics.collect(unfiltered.read().format("gds").load(path).where(filter));
            assertEquals(expected, RowRendering.sorted(kept.rows()), filter + " without the row filter");
            assertEquals(0, kept.metric("rowsFiltered"), filter);
            assertTrue(kept.metric("numOutputRows") >= expected.size(), filter);
        }
        for (String filter : PARTIAL) {
            ScanMetrics.Result filtered = ScanMetrics.collect(spark.read().format("gds").load(path).where(filter));
            List<String> expected = RowRendering.sorted(spark.read().parquet(path).where(filter).collectAsList());
            assertEquals(expected, RowRendering.sorted(filtered.rows()), filter);
            assertTrue(filtered.metric("numOutputRows") >= expected.size(), filter + ": " + filtered.metrics());
        }
        ScanMetrics.Result partial = ScanMetrics.collect(spark.read().format("gds").load(path).where("dec > 10.5 AND i < 300"));
        assertTrue(partial.metric("rowsFiltered") > 0, "the evaluable half still drops rows: " + partial.metrics());
        ScanMetrics.Result none = ScanMetrics.collect(spark.read().format("gds").load(path).where("i > 100000"));
        assertEquals(List.of(), none.rows());
        ScanMetrics.Result most = ScanMetrics.collect(spark.read().format("gds").load(path).where("i < 100"));
        assertTrue(most.metric("rowsFiltered") > ROWS / 2, "i < 100 is evaluated in the scan: " + most.metrics());
    }
}
