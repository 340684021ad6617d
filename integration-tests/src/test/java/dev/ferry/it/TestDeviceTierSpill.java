package dev.ferry.it;

import dev.ferry.device.pool.TierMetrics;
import dev.ferry.shuffle.FerryShuffleManager;
import dev.ferry.shuffle.store.DeviceTieredMapOutputStore;
import dev.ferry.shuffle.store.MapOutputStore;
import org.apache.spark.SparkEnv;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static dev.ferry.it.QueryComparison.assertSameAsSpark;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The device tiers under pressure: {@code spark.ferry.shuffle.stage=device} on the simulated
 * backend with 1 MiB of device memory and a 2 MiB host tier, for shuffles of tens of MiB. Map
 * outputs spill from the (simulated) GPU to host memory and on to local disk, are read back from
 * whichever tier holds them, and every result equals Spark's own shuffle. (The cuda backend runs
 * the same store in scripts/gpu-check.sh.)
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestDeviceTierSpill
{
    private SparkSession spark;

    @BeforeAll
    void start()
    {
        spark = FerrySessions.builder("local[2]")
                .config("spark.plugins", "dev.ferry.FerryPlugin")
                .config("spark.ferry.device", "simulated")
                .config("spark.ferry.shuffle.stage", "device")
                .config("spark.ferry.device.memoryLimit", "1m")
                .config("spark.ferry.device.pool.hostTierLimit", "2m")
                // Blocks of about 100 KiB: many map outputs, each far below the device limit.
                .config("spark.sql.shuffle.partitions", "16")
                .config("spark.sql.adaptive.coalescePartitions.enabled", "false")
                .getOrCreate();
        spark.sql("CREATE OR REPLACE TEMPORARY VIEW events AS SELECT id, pmod(hash(id, 1), 20000) AS user_id, CAST(pmod(hash(id, 2), 31) AS INT) AS kind, "
                + "concat(sha2(CAST(id AS STRING), 256), '-', id) AS payload FROM range(0, 160000, 1, 12)");
        spark.sql("CREATE OR REPLACE TEMPORARY VIEW users AS SELECT id AS user_id, concat('user-', id) AS name FROM range(0, 20000, 1, 2)");
    }

    @AfterAll
    void stop()
    {
        if (spark != null) {
            spark.stop();
        }
    }

    @Test
    void blocksSpillToHostAndDiskAndResultsStayRight()
    {
        assertSameAsSpark(spark, "SELECT u.name, count(*), max(e.payload) FROM events e JOIN users u ON e.user_id = u.user_id GROUP BY u.name", false);
        assertSameAsSpark(spark, "SELECT kind, count(DISTINCT payload), min(payload) FROM events GROUP BY kind", false);
        assertSameAsSpark(spark, "SELECT id, kind, row_number() OVER (PARTITION BY kind ORDER BY payload) AS rn FROM events WHERE id % 10 = 0", false);
        assertSameAsSpark(spark, "SELECT payload, id FROM events WHERE id % 7 = 0 ORDER BY payload", true);

        MapOutputStore store = ((FerryShuffleManager) SparkEnv.get().shuffleManager()).runtimeIfStarted().orElseThrow().store();
        assertEquals("device(simulated)", store.name(), "the device store is in use, not the host fallback");
        TierMetrics tiers = ((DeviceTieredMapOutputStore) store).tierMetrics();
        assertTrue(tiers.spillsToHost() > 0, "blocks spilled off the device: " + tiers);
        assertTrue(tiers.spillsToDisk() > 0, "blocks spilled on to disk: " + tiers);
        assertTrue(tiers.deviceBytes() <= 1 << 20, "the device tier stays within its limit: " + tiers);
        System.out.println("device tiers after the queries: " + tiers);
    }
}
