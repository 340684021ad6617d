package dev.ferry.plugin;

import dev.ferry.gds.metrics.GdsMetric;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/deploying.md's table of the gds scan's metrics lists every {@link GdsMetric}, in order, with the
 * short name the Spark UI shows; a UI name stays short (the long text lives in that table).
 */
class ScanMetricsDocsTest
{
    private static final Path REPO = Path.of(System.getProperty("ferry.repo.dir", ".."));
    private static final Pattern ROW = Pattern.compile("^\\| ([^|]+) \\| `(\\w+)` \\| [^|]+ \\|$", Pattern.MULTILINE);
    private static final int LONGEST_UI_NAME = 28;

    @Test
    void deployingDocListsEveryScanMetric()
            throws IOException
    {
        String deploying = Files.readString(REPO.resolve("docs/deploying.md"), StandardCharsets.UTF_8);
        int start = deploying.indexOf("## The gds scan's metrics");
        assertTrue(start >= 0, "docs/deploying.md has a section \"The gds scan's metrics\"");
        String section = deploying.substring(start);
        int next = section.indexOf("\n## ", 1);
        section = next < 0 ? section : section.substring(0, next);
        Map<String, String> documented = new LinkedHashMap<>();
        Matcher row = ROW.matcher(section);
        while (row.find()) {
            documented.put(row.group(2), row.group(1).trim());
        }
        Map<String, String> inCode = new LinkedHashMap<>();
        for (GdsMetric metric : GdsMetric.values()) {
            inCode.put(metric.metricName(), metric.description());
            assertTrue(metric.description().length() <= LONGEST_UI_NAME, metric + "'s UI name is a sentence: " + metric.description());
        }
        assertEquals(inCode, documented, "docs/deploying.md's scan metrics table (UI name | key) disagrees with GdsMetric");
    }
}
