package dev.ferry.it;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs one query with Ferry's exchange and again with Spark's own (spark.ferry.enabled switched
 * at run time in the same session) and compares the results, rendered as JSON so binary, nested
 * and floating-point values compare by value. Also checks which exchange each run used.
 */
final class QueryComparison
{
    static final String FERRY_EXCHANGE = "FerryColumnarExchange";

    private QueryComparison() {}

    /** The outcome of the Ferry run: its final (AQE) plan and result rows, for further assertions. */
    record FerryRun(String plan, List<String> rows, Dataset<String> dataset)
    {
    }

    static FerryRun assertSameAsSpark(SparkSession spark, String sql, boolean ordered)
    {
        return assertSameAsSpark(spark, session -> session.sql(sql), ordered, sql);
    }

    static FerryRun assertSameAsSpark(SparkSession spark, Function<SparkSession, Dataset<Row>> query, boolean ordered, String description)
    {
        FerryRun ferry = run(spark, query, true, ordered);
        FerryRun plain = run(spark, query, false, ordered);
        assertTrue(ferry.plan().contains(FERRY_EXCHANGE), description + ": Ferry's exchange is not in the plan:\n" + ferry.plan());
        assertFalse(plain.plan().contains(FERRY_EXCHANGE), description + ": spark.ferry.enabled=false still used Ferry:\n" + plain.plan());
        assertEquals(plain.rows().size(), ferry.rows().size(), description + ": row count differs");
        assertEquals(plain.rows(), ferry.rows(), description + ": results differ");
        return ferry;
    }

    static FerryRun run(SparkSession spark, Function<SparkSession, Dataset<Row>> query, boolean ferry, boolean ordered)
    {
        spark.conf().set("spark.ferry.enabled", String.valueOf(ferry));
        try {
            Dataset<String> json = query.apply(spark).toJSON();
            List<String> rows = new ArrayList<>(json.collectAsList());
            if (!ordered) {
                Collections.sort(rows);
            }
            return new FerryRun(json.queryExecution().executedPlan().toString(), rows, json);
        }
        finally {
            spark.conf().set("spark.ferry.enabled", "true");
        }
    }
}
