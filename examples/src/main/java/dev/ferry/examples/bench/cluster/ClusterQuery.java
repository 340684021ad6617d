package dev.ferry.examples.bench.cluster;

import java.util.ArrayList;
import java.util.List;

import dev.ferry.examples.bench.shuffle.ShuffleQueries;
import dev.ferry.examples.demo.DemoQueries;

/** One query of the cluster benchmark: from {@code bin/ferry bench shuffle}'s set or the demo's five. */
public record ClusterQuery(String set, String name, String sql)
{
    /** The queries of {@code all}, {@code shuffle} or {@code demo}, shuffle's first. */
    public static List<ClusterQuery> of(String set)
    {
        List<ClusterQuery> queries = new ArrayList<>();
        if (set.equals("all") || set.equals("shuffle")) {
            for (ShuffleQueries.Query query : ShuffleQueries.ALL) {
                queries.add(new ClusterQuery("shuffle", query.name(), query.sql()));
            }
        }
        if (set.equals("all") || set.equals("demo")) {
            for (DemoQueries.Query query : DemoQueries.ALL) {
                queries.add(new ClusterQuery("demo", query.name(), query.sql()));
            }
        }
        return List.copyOf(queries);
    }
}
