package dev.ferry.gds.read;

import org.apache.spark.sql.DataFrameWriter;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The corpus of gpu-check's decode-rates stage: one lineitem-like flat table (longs, ints, decimals
 * stored as INT64, doubles, dates, short and long strings, nulls in several columns) written by Spark
 * once per codec, the same rows each time, in {@code files} files so every core has files to decode.
 * High-cardinality columns are written without a dictionary (as a writer that gives up on them
 * mid-chunk would leave them, without the mixed chunks the device decoder refuses).
 */
final class DecodeRateCorpus
{
    static final List<String> CODECS = List.of("uncompressed", "snappy", "zstd");

    private static final String[] COLUMNS = {
            "id AS l_orderkey",
            "(id * 7919) % 2000000 AS l_partkey",
            "CAST(id % 10000 AS INT) AS l_suppkey",
            "CAST(id % 7 + 1 AS INT) AS l_linenumber",
            "CAST(id % 50 + 1 AS DECIMAL(12, 2)) AS l_quantity",
            "CASE WHEN id % 101 = 0 THEN NULL ELSE CAST((id * 104729 % 10000000) / 100.0 AS DECIMAL(12, 2)) END AS l_extendedprice",
            "CAST(id % 11 AS DOUBLE) / 100 AS l_discount",
            "CASE WHEN id % 37 = 0 THEN NULL ELSE CAST(id % 9 AS DOUBLE) / 100 END AS l_tax",
            "date_add(DATE '1992-01-01', CAST(id % 2500 AS INT)) AS l_shipdate",
            "CASE WHEN id % 53 = 0 THEN NULL ELSE date_add(DATE '1992-01-31', CAST(id * 13 % 2500 AS INT)) END AS l_commitdate",
            "substr('AFNR', CAST(id % 3 AS INT) + 1, 1) AS l_returnflag",
            "element_at(array('AIR', 'MAIL', 'SHIP', 'TRUCK', 'RAIL', 'FOB', 'REG AIR'), CAST(id % 7 AS INT) + 1) AS l_shipmode",
            "CASE WHEN id % 29 = 0 THEN NULL ELSE concat('quickly ', CAST(id * 2654435761 % 1000003 AS STRING), ' furiously regular ',"
                    + " CAST(id % 997 AS STRING)) END AS l_comment"};
    private static final List<String> WITHOUT_DICTIONARY = List.of("l_orderkey", "l_partkey", "l_extendedprice", "l_comment");

    private DecodeRateCorpus() {}

    /** Writes {@code rows} rows under {@code directory}/{codec} in {@code files} files; returns each file of {@code codec}. */
    static List<Path> write(SparkSession spark, Path directory, String codec, long rows, int files)
            throws IOException
    {
        Path output = directory.resolve(codec);
        DataFrameWriter<Row> writer = spark.range(0, rows, 1, files).selectExpr(COLUMNS).write()
                .mode(SaveMode.Overwrite)
                .option("compression", codec)
                .option("parquet.enable.dictionary", "true");
        for (String column : WITHOUT_DICTIONARY) {
            writer = writer.option("parquet.enable.dictionary#" + column, "false");
        }
        writer.parquet(output.toString());
        try (Stream<Path> listing = Files.list(output)) {
            List<Path> written = listing.filter(path -> path.getFileName().toString().endsWith(".parquet")).sorted().collect(Collectors.toList());
            if (written.isEmpty()) {
                throw new IllegalStateException("Spark wrote no Parquet file under " + output);
            }
            return written;
        }
    }
}
