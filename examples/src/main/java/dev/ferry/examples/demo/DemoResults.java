package dev.ferry.examples.demo;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.ferry.shuffle.ExchangeMetrics;

/** What the demo measured: the dataset, and each query run both ways. */
record DemoResults(DemoSize size, Map<String, Long> tableBytes, List<QueryComparison> queries)
{
    boolean allAgree()
    {
        return queries.stream().allMatch(query -> query.sameRows() && query.ferryUsedItsExchange());
    }

    long ferryMillis()
    {
        return queries.stream().mapToLong(query -> query.ferry().millis()).sum();
    }

    long sparkMillis()
    {
        return queries.stream().mapToLong(query -> query.spark().millis()).sum();
    }

    long ferryBytesWritten()
    {
        return queries.stream().mapToLong(query -> query.ferry().shuffles().bytesWritten()).sum();
    }

    long sparkBytesWritten()
    {
        return queries.stream().mapToLong(query -> query.spark().shuffles().bytesWritten()).sum();
    }

    /** Bytes Ferry's readers took over each route, summed over the Ferry runs (every route listed, most 0). */
    Map<String, Long> routeBytes()
    {
        Map<String, Long> bytes = new LinkedHashMap<>();
        ExchangeMetrics.ROUTES.forEach(route -> bytes.put(route, 0L));
        queries.forEach(query -> query.ferry().shuffles().routeBytes().forEach((route, count) -> bytes.merge(route, count, Long::sum)));
        return bytes;
    }

    /** Parquet bytes the gds reader read per file route, over the Ferry runs. */
    Map<String, Long> gdsReadBytes()
    {
        Map<String, Long> bytes = new LinkedHashMap<>();
        queries.forEach(query -> query.ferry().scans().bytesPerRoute().forEach((route, count) -> bytes.merge(route, count, Long::sum)));
        return bytes;
    }
}
