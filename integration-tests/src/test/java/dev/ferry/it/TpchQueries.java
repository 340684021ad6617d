package dev.ferry.it;

import java.util.List;
import java.util.stream.IntStream;

/** The 22 TPC-H query texts in src/test/resources/tpch (q01.sql ... q22.sql), over {@link TpchTables}. */
final class TpchQueries
{
    private TpchQueries() {}

    static List<String> names()
    {
        return IntStream.rangeClosed(1, 22).mapToObj(q -> String.format("q%02d", q)).toList();
    }

    static String sql(String name)
    {
        return QueryTexts.read("/tpch/" + name + ".sql");
    }
}
