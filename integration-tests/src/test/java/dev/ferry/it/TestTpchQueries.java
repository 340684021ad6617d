package dev.ferry.it;

import java.util.List;

import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The 22 TPC-H queries (src/test/resources/tpch, standard text, parameters chosen so each returns
 * rows on the generated data) over {@link TpchTables}, with Ferry's exchange and with Spark's own:
 * the same rows in the same order, every query planned with Ferry's exchange. Broadcast joins are
 * off, so every join shuffles both sides; correlated subqueries, semi/anti joins, range-partitioned
 * sorts and decimals all cross Ferry's exchange.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestTpchQueries
{
    private static final int ORDERS = 15_000;

    private SparkSession spark;

    @BeforeAll
    void start()
    {
        spark = FerrySessions.local();
        TpchTables.register(spark, ORDERS);
    }

    @AfterAll
    void stop()
    {
        if (spark != null) {
            spark.stop();
        }
    }

    static List<String> queries()
    {
        return TpchQueries.names();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("queries")
    void sameRowsAsSparksShuffle(String query)
    {
        QueryComparison.FerryRun run = QueryComparison.assertSameAsSpark(spark, TpchQueries.sql(query), true);
        assertFalse(run.rows().isEmpty(), query + " returned no rows on the generated data, so it proves nothing");
    }
}
