package dev.ferry.examples.bench.shuffle;

import java.util.List;

/**
 * The shuffle-heavy query set of {@code bin/ferry bench shuffle}. Every query hashes whole rows
 * into its result, so column pruning cannot narrow the shuffled rows: the exchanges carry every
 * column of the generated table (longs, ints, doubles, decimals, booleans, dates, timestamps and
 * strings), and the results stay a few rows that both shuffles must agree on.
 */
public final class ShuffleQueries
{
    /** One benchmark query over the views {@code fact} and {@code dim}. */
    public record Query(String name, String sql) {}

    public static final List<Query> ALL = List.of(
            // Wide join: both sides shuffled on the key (broadcast is off), every column kept.
            new Query("join-wide", "SELECT count(*), sum(CAST(hash(f.*, d.*) AS BIGINT)) FROM fact f JOIN dim d ON f.k = d.dk"),
            // High-cardinality group-by: partial aggregation barely shrinks the shuffle.
            new Query("groupby-highcard", "SELECT count(*), sum(CAST(h AS BIGINT)) FROM (SELECT id % 2000003 AS g, "
                    + "hash(max(v), max(note), max(name), min(day), max(ts), sum(price), max(flag)) AS h FROM fact GROUP BY id % 2000003)"),
            // Low-cardinality group-by over strings: a small, aggregated shuffle.
            new Query("groupby-strings", "SELECT count(*), sum(CAST(hash(name, c, s, m) AS BIGINT)) FROM (SELECT name, count(*) AS c, sum(qty) AS s, "
                    + "max(note) AS m FROM fact GROUP BY name)"),
            // repartition(n, key): the whole table moves once.
            new Query("repartition", "SELECT count(*), sum(CAST(hash(*) AS BIGINT)) FROM (SELECT /*+ REPARTITION(64, k) */ * FROM fact)"),
            // DISTINCT over strings and dates.
            new Query("distinct", "SELECT count(*), sum(CAST(hash(name, day, flag) AS BIGINT)) FROM (SELECT DISTINCT name, day, flag FROM fact)"));

    private ShuffleQueries() {}
}
