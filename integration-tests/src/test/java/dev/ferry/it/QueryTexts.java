package dev.ferry.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** Query texts on the test class path: TPC-H's in src/test/resources/tpch, Spark's TPC-DS ones unpacked from its test jar into tpcds/. */
final class QueryTexts
{
    private QueryTexts() {}

    static String read(String resource)
    {
        try (InputStream in = QueryTexts.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("No query " + resource + " on the test class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
