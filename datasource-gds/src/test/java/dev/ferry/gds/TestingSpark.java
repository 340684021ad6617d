package dev.ferry.gds;

import org.apache.spark.sql.SparkSession;

/** The one local SparkSession a test class shares: small, no UI, few shuffle partitions. */
public final class TestingSpark
{
    private TestingSpark() {}

    public static SparkSession start()
    {
        SparkSession spark = SparkSession.builder()
                .master("local[2]")
                .appName("ferry-gds-test")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "4")
                .config("spark.sql.session.timeZone", "UTC")
                // Test data is tiny, so compiling generated code would cost more than running it.
                .config("spark.sql.codegen.wholeStage", "false")
                .getOrCreate();
        spark.sparkContext().setLogLevel("ERROR");
        return spark;
    }
}
