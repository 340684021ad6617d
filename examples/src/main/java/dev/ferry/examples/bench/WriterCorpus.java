package dev.ferry.examples.bench;

import org.apache.spark.sql.SparkSession;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * A TPC-H-lineitem-like table written, offline, by several Parquet writers, one directory each:
 * Spark's writer (snappy, zstd), parquet-mr with data page v2 (Spark's writer with
 * {@code parquet.writer.version=v2}: delta encodings where dictionaries fall back, v2 page headers;
 * zstd, snappy; one file) and DuckDB through its JDBC driver with its own page, dictionary and
 * row-group choices (row groups of 122,880 rows, zstd; one file). Every writer holds the same rows, so
 * their answers must agree too. Generated once per row count and reused (a {@code _GENERATED} marker).
 */
public final class WriterCorpus
{
    /** The writers, in the order the benchmark reports them. */
    public static final List<String> WRITERS = List.of("spark-snappy", "spark-zstd", "parquet-mr-v2-zstd", "parquet-mr-v2-snappy", "duckdb-zstd");

    // TPC-H's lineitem columns and types; values from hashes of the row number, like dbgen's ranges (not its exact values).
    // l_comment: four words of a fixed list (~27 bytes, nearly unique, as dbgen's text is); l_shipmode and friends: a few values.
    private static final String WORDS = "array('furiously', 'quickly', 'carefully', 'blithely', 'slyly', 'regular', 'express', 'final', 'pending', 'ironic', "
            + "'even', 'bold', 'special', 'unusual', 'silent', 'deposits', 'packages', 'accounts', 'requests', 'theodolites', 'pinto', 'beans', "
            + "'foxes', 'ideas', 'dependencies', 'instructions', 'courts', 'asymptotes', 'platelets', 'excuses', 'sleep', 'nag', 'haggle', "
            + "'wake', 'cajole', 'boost', 'integrate', 'detect', 'use', 'among', 'above', 'along', 'after', 'across', 'against', 'the', 'fluffily')";

    private static final String[] COLUMNS = {
            "id DIV 4 + 1 AS l_orderkey",
            "CAST(pmod(hash(id, 1), 200000) + 1 AS BIGINT) AS l_partkey",
            "CAST(pmod(hash(id, 2), 10000) + 1 AS BIGINT) AS l_suppkey",
            "CAST(pmod(id, 7) + 1 AS INT) AS l_linenumber",
            "CAST(pmod(hash(id, 3), 50) + 1 AS DECIMAL(15, 2)) AS l_quantity",
            "CAST(pmod(hash(id, 4), 10000000) / 100.0 + 900 AS DECIMAL(15, 2)) AS l_extendedprice",
            "CAST(pmod(hash(id, 5), 11) / 100.0 AS DECIMAL(15, 2)) AS l_discount",
            "CAST(pmod(hash(id, 6), 9) / 100.0 AS DECIMAL(15, 2)) AS l_tax",
            "element_at(array('A', 'N', 'R'), CAST(pmod(hash(id, 7), 3) + 1 AS INT)) AS l_returnflag",
            "element_at(array('F', 'O'), CAST(pmod(hash(id, 8), 2) + 1 AS INT)) AS l_linestatus",
            "date_add(DATE '1992-01-02', CAST(pmod(hash(id, 9), 2526) AS INT)) AS l_shipdate",
            "date_add(DATE '1992-01-31', CAST(pmod(hash(id, 10), 2466) AS INT)) AS l_commitdate",
            "date_add(DATE '1992-01-03', CAST(pmod(hash(id, 11), 2556) AS INT)) AS l_receiptdate",
            "element_at(array('DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'), CAST(pmod(hash(id, 12), 4) + 1 AS INT)) AS l_shipinstruct",
            "element_at(array('REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB'), CAST(pmod(hash(id, 13), 7) + 1 AS INT)) AS l_shipmode",
            "concat_ws(' ', element_at(" + WORDS + ", CAST(pmod(hash(id, 14), 47) + 1 AS INT)), element_at(" + WORDS + ", CAST(pmod(hash(id, 15), 47) + 1 AS INT)), "
                    + "element_at(" + WORDS + ", CAST(pmod(hash(id, 16), 47) + 1 AS INT)), element_at(" + WORDS + ", CAST(pmod(hash(id, 17), 47) + 1 AS INT))) AS l_comment",
    };

    /** The query of issue 21 (a plain scan and aggregate with one count(DISTINCT), which the gds scan takes split into a GROUP BY: SingleDistinctAggregateSplit) first, then the scan benchmark's query shapes over lineitem. */
    public static final List<String[]> QUERIES = List.of(
            new String[] {"lineitem-scan", "SELECT count(*), sum(l_quantity), sum(l_extendedprice), sum(l_discount), count(l_comment), sum(length(l_comment)), "
                    + "CAST(min(l_shipdate) AS VARCHAR(20)), CAST(max(l_receiptdate) AS VARCHAR(20)), sum(l_orderkey % 1000), count(DISTINCT l_shipmode) FROM lineitem"},
            new String[] {"q1-sum-numeric", "SELECT count(*), sum(l_extendedprice), sum(l_discount), avg(l_quantity), sum(l_orderkey) FROM lineitem"},
            new String[] {"q2-group-by", "SELECT l_returnflag, l_linestatus, count(*), sum(l_quantity), max(l_receiptdate), min(l_shipdate) FROM lineitem GROUP BY l_returnflag, l_linestatus"},
            new String[] {"q3-strings", "SELECT sum(length(l_comment)), max(l_comment), sum(CASE WHEN l_shipmode = 'AIR' THEN 1 ELSE 0 END), max(l_shipinstruct) FROM lineitem"},
            new String[] {"q4-filtered", "SELECT count(*), sum(l_extendedprice), max(l_comment) FROM lineitem WHERE l_quantity < 10"});

    private WriterCorpus() {}

    /** The corpus of {@code rows} rows under {@code root}, generated where it is not there yet; returns one directory per writer. */
    public static Path generate(SparkSession spark, Path root, long rows)
            throws IOException
    {
        Path corpus = root.resolve(String.format(Locale.ROOT, "writers-%drows", rows)).toAbsolutePath();
        if (Files.exists(corpus.resolve("_GENERATED"))) {
            return corpus;
        }
        System.out.printf(Locale.ROOT, "generating the writers' corpus, %,d lineitem rows per writer, into %s (once; cached)%n", rows, corpus);
        int partitions = (int) Math.max(1, Math.min(8, rows / 3_000_000));
        for (String codec : new String[] {"snappy", "zstd"}) {
            spark.range(0, rows, 1, partitions).selectExpr(COLUMNS).write().mode("overwrite").option("compression", codec)
                    .parquet(corpus.resolve("spark-" + codec).toString());
        }
        for (String codec : new String[] {"zstd", "snappy"}) {
            // parquet-mr's v2 writer: data page v2 headers, DELTA_BINARY_PACKED / DELTA_BYTE_ARRAY where a dictionary falls back.
            spark.range(0, rows, 1, partitions).selectExpr(COLUMNS).coalesce(1).write().mode("overwrite").option("compression", codec)
                    .option("parquet.writer.version", "v2").parquet(corpus.resolve("parquet-mr-v2-" + codec).toString());
        }
        writeDuckDb(corpus.resolve("spark-snappy"), corpus.resolve("duckdb-zstd"));
        Files.writeString(corpus.resolve("_GENERATED"), rows + " rows per writer\n");
        return corpus;
    }

    /** DuckDB rewrites Spark's files into one file with its own writer's defaults, but for the codec (its default is snappy). */
    static void writeDuckDb(Path sparkFiles, Path directory)
            throws IOException
    {
        Files.createDirectories(directory);
        Path file = directory.resolve("lineitem.parquet");
        Files.deleteIfExists(file);
        try (Connection connection = DriverManager.getConnection("jdbc:duckdb:");
                Statement statement = connection.createStatement()) {
            // Two threads and a memory cap: the machine this runs on is small and shared. preserve_insertion_order keeps the files' row order.
            statement.execute("SET threads = 2");
            statement.execute("SET memory_limit = '2GB'");
            statement.execute("SET preserve_insertion_order = true");
            statement.execute(String.format(Locale.ROOT, "COPY (SELECT * FROM read_parquet('%s/*.parquet')) TO '%s' (FORMAT parquet, COMPRESSION zstd)",
                    sparkFiles, file));
        }
        catch (SQLException e) {
            throw new IOException("DuckDB could not write " + file + ": " + e.getMessage(), e);
        }
    }

    /** The Parquet bytes under a writer's directory. */
    public static long bytes(Path directory)
    {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(file -> file.toString().endsWith(".parquet")).mapToLong(file -> {
                try {
                    return Files.size(file);
                }
                catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).sum();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
