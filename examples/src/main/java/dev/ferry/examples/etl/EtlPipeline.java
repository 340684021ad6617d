package dev.ferry.examples.etl;

import java.nio.file.Path;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;

import static java.util.Objects.requireNonNull;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.sum;

/**
 * The ETL step shared by {@link EtlJob} and {@code bin/ferry demo}: read both tables as Parquet,
 * join lineitems to their orders, aggregate revenue per customer, month and status, repartition by
 * region and write Parquet. Every step that moves rows between tasks is a shuffle: the join's two
 * sides (broadcasts are off in the sessions that run it), the aggregate and the repartition.
 */
public final class EtlPipeline
{
    /** Partitions of the final repartition, so the output has a fixed number of files. */
    public static final int OUTPUT_PARTITIONS = 4;

    private EtlPipeline() {}

    public static Dataset<Row> transform(SparkSession spark, Path input)
    {
        requireNonNull(spark, "spark is null");
        requireNonNull(input, "input is null");
        Dataset<Row> orders = spark.read().parquet(input.resolve(EtlData.ORDERS).toString());
        Dataset<Row> lineitem = spark.read().parquet(input.resolve(EtlData.LINEITEM).toString());
        return lineitem.join(orders, "order_id")
                .selectExpr(
                        "customer_id",
                        "region",
                        "status",
                        "date_trunc('MONTH', order_date) AS month",
                        "quantity",
                        "price * quantity * (1 - discount) AS revenue")
                .groupBy("customer_id", "region", "status", "month")
                .agg(
                        sum("quantity").alias("quantity"),
                        sum("revenue").alias("revenue"),
                        count("*").alias("lines"))
                .repartition(OUTPUT_PARTITIONS, col("region"));
    }

    /** Runs the step and writes its result to {@code output}, replacing what was there. */
    public static void run(SparkSession spark, Path input, Path output)
    {
        requireNonNull(output, "output is null");
        transform(spark, input).write().mode(SaveMode.Overwrite).parquet(output.toString());
    }

    /**
     * An order-independent fingerprint of a result: row count, and the sum and XOR of every row's
     * 64-bit hash. Two runs that wrote the same rows (in any files, in any order) print the same line.
     */
    public static String fingerprint(SparkSession spark, Path output)
    {
        Row row = spark.read().parquet(output.toString())
                .selectExpr("xxhash64(*) AS h")
                .selectExpr("count(*) AS n", "CAST(sum(CAST(h AS DECIMAL(38, 0))) AS STRING) AS s", "bit_xor(h) AS x")
                .first();
        return "rows=" + row.getLong(0) + " hashSum=" + row.getString(1) + " hashXor=" + row.getLong(2);
    }
}
