package dev.ferry.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
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
        try (InputStream in = TpchQueries.class.getResourceAsStream("/tpch/" + name + ".sql")) {
            if (in == null) {
                throw new IllegalArgumentException("No TPC-H query /tpch/" + name + ".sql on the test class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
