package dev.ferry.examples.bench.shuffle;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

import org.apache.spark.sql.SparkSession;

/**
 * The benchmark's tables, generated once by Spark into Parquet and cached by row count:
 * {@code fact} (the given rows; ten columns of mixed types, two of them strings) and {@code dim}
 * (a fifth as many rows, keyed so every fact row joins exactly one dim row).
 */
public final class ShuffleData
{
    private static final String[] FACT = {
            "id",
            "CAST(pmod(hash(id), %1$d) AS BIGINT) AS k",
            "CAST(pmod(hash(id, 1), 100000) AS INT) AS qty",
            "rand(7) AS v",
            "CAST(rand(11) * 100000 AS DECIMAL(12, 2)) AS price",
            "pmod(hash(id, 2), 3) = 0 AS flag",
            "concat('name-', CAST(pmod(hash(id, 3), 50000) AS STRING)) AS name",
            "md5(CAST(id AS STRING)) AS note",
            "date_add(DATE '2020-01-01', CAST(pmod(hash(id, 4), 1500) AS INT)) AS day",
            "timestamp_micros(1600000000000000 + id * 1000003) AS ts",
    };
    private static final String[] DIM = {
            "id AS dk",
            "concat('dim-', CAST(id AS STRING), '-', CAST(pmod(hash(id, 5), 97) AS STRING)) AS dname",
            "CAST(pmod(hash(id, 6), 1000) AS INT) AS dgroup",
            "rand(13) AS dweight",
    };

    private ShuffleData() {}

    /** Rows of the dim table for {@code factRows} fact rows. */
    public static long dimRows(long factRows)
    {
        return Math.max(1, factRows / 5);
    }

    /** Generates (once) and registers the views {@code fact} and {@code dim}; returns the data directory. */
    public static Path register(SparkSession spark, long rows, Path baseDirectory)
            throws IOException
    {
        Path data = baseDirectory.resolve(String.format(Locale.ROOT, "shuffle-%drows", rows)).toAbsolutePath();
        Path done = data.resolve("_GENERATED");
        if (!Files.exists(done)) {
            System.out.printf(Locale.ROOT, "generating %,d fact rows and %,d dim rows into %s (once; cached)%n", rows, dimRows(rows), data);
            int files = (int) Math.max(2, Math.min(64, rows / 1_000_000 * 2));
            String[] fact = new String[FACT.length];
            for (int i = 0; i < FACT.length; i++) {
                fact[i] = String.format(Locale.ROOT, FACT[i], dimRows(rows));
            }
            spark.range(0, rows, 1, files).selectExpr(fact).write().mode("overwrite").parquet(data.resolve("fact").toString());
            spark.range(0, dimRows(rows), 1, Math.max(2, files / 4)).selectExpr(DIM).write().mode("overwrite").parquet(data.resolve("dim").toString());
            Files.writeString(done, rows + " rows\n");
        }
        spark.read().parquet(data.resolve("fact").toString()).createOrReplaceTempView("fact");
        spark.read().parquet(data.resolve("dim").toString()).createOrReplaceTempView("dim");
        return data;
    }
}
