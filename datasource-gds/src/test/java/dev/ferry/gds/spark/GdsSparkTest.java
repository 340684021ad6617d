package dev.ferry.gds.spark;

import dev.ferry.gds.TestingSpark;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** One local SparkSession (TestingSpark's settings) per test class, started before its tests and stopped after them. */
abstract class GdsSparkTest
{
    protected static SparkSession spark;

    @BeforeAll
    static void startSpark()
    {
        spark = TestingSpark.start();
    }

    @AfterAll
    static void stopSpark()
    {
        if (spark != null) {
            spark.stop();
            spark = null;
        }
    }
}
