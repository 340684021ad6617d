package dev.ferry.it;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ferry.plugin.ClusterRegistry;
import dev.ferry.plugin.ExecutorPlacement;
import dev.ferry.plugin.FerryDriverPlugin;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

import static dev.ferry.it.QueryComparison.assertSameAsSpark;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A subset of the query suite on two executor JVMs (local-cluster[2,1,1024]): blocks written by one
 * executor are fetched by the other over Ferry's TCP transport, and the results still equal
 * Spark's own shuffle.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TestFerryLocalCluster
{
    private SparkSession spark;

    @BeforeAll
    void start()
            throws InterruptedException
    {
        spark = FerrySessions.localCluster();
        TestData.register(spark);
    }

    @AfterAll
    void stop()
    {
        if (spark != null) {
            spark.stop();
        }
    }

    @Test
    @Order(0)
    void everyExecutorJvmReportsItsPlacementToTheDriver()
            throws InterruptedException
    {
        ClusterRegistry registry = FerryDriverPlugin.active().orElseThrow(() -> new AssertionError("FerryPlugin's driver side is not running"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (registry.executors().size() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertEquals(Set.of("0", "1"), registry.executors().keySet(), "placements from both executor JVMs");
        for (ExecutorPlacement placement : registry.executors().values()) {
            // Spark's host name for the executor (often an address) and the probed machine's own
            // name differ; both must be there.
            assertFalse(placement.hostname().isEmpty(), placement.toString());
            assertTrue(placement.nodeTopologyJson().contains("\"hostname\""), placement.nodeTopologyJson());
            assertTrue(placement.summary().contains("GPU"), placement.summary());
        }
    }

    @Test
    @Order(1)
    void joinsAggregatesAndSortsAcrossExecutors()
    {
        QueryComparison.FerryRun join = assertSameAsSpark(spark, "SELECT f.id, f.k, d.name FROM facts f JOIN dims d ON f.k = d.k", false);
        assertTrue(tcpBytes(join) > 0, "blocks crossed between the executor JVMs over TCP:\n" + join.plan());
        assertSameAsSpark(spark, "SELECT k, count(*), sum(id), max(s) FROM facts GROUP BY k", false);
        assertSameAsSpark(spark, "SELECT id, s FROM facts ORDER BY s NULLS LAST, id", true);
    }

    @Test
    @Order(2)
    void everyTypeAcrossExecutors()
    {
        QueryComparison.FerryRun run = assertSameAsSpark(spark, "SELECT * FROM types DISTRIBUTE BY id", false);
        assertTrue(tcpBytes(run) > 0, run.plan());
        assertSameAsSpark(spark, session -> session.table("facts").repartition(5), false, "repartition(5)");
    }

    /**
     * Runs a query once so its Ferry map outputs sit on both executors, kills one executor, and runs
     * the same (already planned) query again: its outputs are gone with it, Spark must rerun those
     * map tasks on the survivor, and the result must not change. Last, since it leaves one executor.
     */
    /** TPC-H's most join-heavy queries with blocks crossing executor JVMs (the full 22 run in local[2], TestTpchQueries). */
    @Test
    @Order(2)
    void tpchJoinsAcrossExecutors()
    {
        TpchTables.register(spark, 15_000);
        for (String query : List.of("q09", "q21")) {
            QueryComparison.FerryRun run = assertSameAsSpark(spark, TpchQueries.sql(query), true);
            assertFalse(run.rows().isEmpty(), query + " returned no rows");
        }
    }

    @Test
    @Order(3)
    void anExecutorKilledBetweenMapAndReduceLeadsToARerunAndTheSameResult()
            throws InterruptedException
    {
        String query = "SELECT k, count(*) AS c, sum(id) AS total, max(s) AS top FROM facts GROUP BY k";
        List<String> expected = QueryComparison.run(spark, session -> session.sql(query), false, false).rows();

        Dataset<String> ferry = spark.sql(query).toJSON();
        List<String> first = sorted(ferry.collectAsList());
        assertEquals(expected, first);
        assertTrue(ferry.queryExecution().executedPlan().toString().contains(QueryComparison.FERRY_EXCHANGE));

        AtomicInteger mapStagesRun = new AtomicInteger();
        SparkListener listener = new SparkListener()
        {
            @Override
            public void onStageCompleted(SparkListenerStageCompleted completed)
            {
                if (completed.stageInfo().shuffleDepId().isDefined() && completed.stageInfo().failureReason().isEmpty()) {
                    mapStagesRun.incrementAndGet();
                }
            }
        };
        spark.sparkContext().addSparkListener(listener);
        try {
            String executorId = CollectionConverters.asJava(spark.sparkContext().getExecutorIds()).get(0);
            assertTrue(spark.sparkContext().killExecutor(executorId), "kill executor " + executorId);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (CollectionConverters.asJava(spark.sparkContext().getExecutorIds()).contains(executorId)) {
                assertTrue(System.nanoTime() < deadline, "executor " + executorId + " did not go away");
                Thread.sleep(100);
            }
            List<String> second = sorted(ferry.collectAsList());
            assertEquals(expected, second, "same result after losing an executor's map outputs");
            // The listener bus is asynchronous: give it a moment to deliver the rerun's completion.
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (mapStagesRun.get() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertTrue(mapStagesRun.get() > 0, "the lost map outputs were recomputed");
        }
        finally {
            spark.sparkContext().removeSparkListener(listener);
        }
    }

    private static List<String> sorted(List<String> rows)
    {
        List<String> copy = new ArrayList<>(rows);
        Collections.sort(copy);
        return copy;
    }

    private static long tcpBytes(QueryComparison.FerryRun run)
    {
        long bytes = 0;
        for (SparkPlan exchange : Plans.ferryExchanges(run.dataset().queryExecution().executedPlan())) {
            Option<SQLMetric> metric = exchange.metrics().get("ferryRouteTCPBytes");
            if (metric.isDefined()) {
                bytes += metric.get().value();
            }
        }
        return bytes;
    }
}
