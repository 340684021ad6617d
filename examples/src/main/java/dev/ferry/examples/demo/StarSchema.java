package dev.ferry.examples.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;

import static java.util.Objects.requireNonNull;

/**
 * The demo's dataset: an orders/lineitem star schema with customer and part dimensions, written as
 * Parquet by Spark itself (nothing shipped, no driver-side loop). Values come from hashes of the row
 * id, so the same row count always gives the same data; money is DECIMAL so sums are exact and the
 * two runs can be compared value by value. A finished dataset carries a marker file and is reused.
 */
public final class StarSchema
{
    static final String LINEITEM = "lineitem";
    static final String ORDERS = "orders";
    static final String CUSTOMER = "customer";
    static final String PART = "part";
    public static final List<String> TABLES = List.of(LINEITEM, ORDERS, CUSTOMER, PART);

    /** Bump when the generated columns change, so an old cache is not taken for the new schema. */
    private static final String VERSION = "v1";
    private static final String COMPLETE = "_FERRY_DEMO_COMPLETE";

    private StarSchema() {}

    /** Where the dataset of {@code lineitemRows} lives under the cache directory. */
    public static Path location(Path cache, long lineitemRows)
    {
        return cache.resolve("star-" + VERSION + "-" + lineitemRows);
    }

    public static boolean isComplete(Path location)
    {
        return Files.isRegularFile(location.resolve(COMPLETE));
    }

    static long orders(long lineitemRows)
    {
        return Math.max(1, lineitemRows / 4);
    }

    static long customers(long lineitemRows)
    {
        return Math.max(100, lineitemRows / 40);
    }

    static long parts(long lineitemRows)
    {
        return Math.max(100, lineitemRows / 50);
    }

    /** Writes the four tables under {@code location}, replacing a partial earlier attempt, then the marker. */
    public static void generate(SparkSession spark, Path location, long lineitemRows)
            throws IOException
    {
        requireNonNull(spark, "spark is null");
        long orders = orders(lineitemRows);
        long customers = customers(lineitemRows);
        long parts = parts(lineitemRows);
        // Several files per table, so every executor reads a share of each scan.
        int lineitemFiles = (int) Math.min(32, Math.max(8, lineitemRows / 1_000_000));
        Files.deleteIfExists(location.resolve(COMPLETE));
        spark.range(0, customers, 1, 2)
                .selectExpr(
                        "id AS customer_id",
                        "concat('Customer#', lpad(CAST(id AS STRING), 9, '0')) AS name",
                        "element_at(array('ALGERIA', 'ARGENTINA', 'BRAZIL', 'CANADA', 'EGYPT', 'FRANCE', 'GERMANY', 'INDIA', 'JAPAN', 'KENYA',"
                                + " 'PERU', 'UNITED STATES'), CAST(pmod(xxhash64(id, 'nation'), 12) AS INT) + 1) AS nation",
                        "element_at(array('AUTOMOBILE', 'BUILDING', 'FURNITURE', 'HOUSEHOLD', 'MACHINERY'), CAST(pmod(xxhash64(id, 'segment'), 5) AS INT) + 1) AS segment")
                .write().mode(SaveMode.Overwrite).parquet(location.resolve(CUSTOMER).toString());
        spark.range(0, parts, 1, 2)
                .selectExpr(
                        "id AS part_id",
                        "concat('Brand#', CAST(pmod(xxhash64(id, 'brand'), 25) + 11 AS STRING)) AS brand",
                        "element_at(array('ANODIZED', 'BRUSHED', 'BURNISHED', 'PLATED', 'POLISHED'), CAST(pmod(xxhash64(id, 'finish'), 5) AS INT) + 1) AS type",
                        "CAST(pmod(xxhash64(id, 'size'), 50) + 1 AS INT) AS size")
                .write().mode(SaveMode.Overwrite).parquet(location.resolve(PART).toString());
        spark.range(0, orders, 1, Math.max(2, lineitemFiles / 2))
                .selectExpr(
                        "id AS order_id",
                        "pmod(xxhash64(id, 'customer'), " + customers + ") AS customer_id",
                        "date_add(DATE'2023-01-01', CAST(pmod(xxhash64(id, 'day'), 1095) AS INT)) AS order_date",
                        "element_at(array('F', 'O', 'P'), CAST(pmod(xxhash64(id, 'status'), 3) AS INT) + 1) AS status",
                        "element_at(array('1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'), CAST(pmod(id, 5) AS INT) + 1) AS priority")
                .write().mode(SaveMode.Overwrite).parquet(location.resolve(ORDERS).toString());
        spark.range(0, lineitemRows, 1, lineitemFiles)
                .selectExpr(
                        "pmod(xxhash64(id, 'order'), " + orders + ") AS order_id",
                        "CAST(pmod(id, 7) + 1 AS INT) AS line_number",
                        "pmod(xxhash64(id, 'part'), " + parts + ") AS part_id",
                        "CAST(pmod(xxhash64(id, 'quantity'), 50) + 1 AS INT) AS quantity",
                        "CAST(pmod(xxhash64(id, 'price'), 10000000) / 100.0 AS DECIMAL(12, 2)) AS extended_price",
                        "CAST(pmod(id, 11) / 100.0 AS DECIMAL(4, 2)) AS discount",
                        "element_at(array('AIR', 'FOB', 'MAIL', 'RAIL', 'REG AIR', 'SHIP', 'TRUCK'), CAST(pmod(xxhash64(id, 'mode'), 7) AS INT) + 1) AS ship_mode",
                        "concat('note-', CAST(pmod(xxhash64(id, 'comment'), 100000) AS STRING)) AS comment")
                .write().mode(SaveMode.Overwrite).parquet(location.resolve(LINEITEM).toString());
        Files.writeString(location.resolve(COMPLETE), lineitemRows + " lineitem rows\n");
    }
}
