package dev.ferry.plugin;

import dev.ferry.shuffle.ExchangeMetrics;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/deploying.md's table of the exchange's metrics names every key of Ferry's own exchange
 * metrics ({@link ExchangeMetrics}, all of them as the debug level lists them): each key matches
 * exactly one documented key (placeholders such as {@code <ROUTE>} or {@code <FROM>} stand for a
 * route name), and each documented key matches at least one key in code.
 */
class ExchangeMetricsDocsTest
{
    private static final Path REPO = Path.of(System.getProperty("ferry.repo.dir", ".."));
    private static final Pattern ROW = Pattern.compile("^\\| [^|]+ \\| `(\\w[\\w<>]*)` \\| (essential|moderate|debug) \\| [^|]+ \\|$", Pattern.MULTILINE);

    @Test
    void deployingDocListsEveryExchangeMetricKey()
            throws IOException
    {
        String deploying = Files.readString(REPO.resolve("docs/deploying.md"), StandardCharsets.UTF_8);
        int start = deploying.indexOf("## The exchange's metrics");
        assertTrue(start >= 0, "docs/deploying.md has a section \"The exchange's metrics\"");
        String section = deploying.substring(start);
        int next = section.indexOf("\n## ", 1);
        section = next < 0 ? section : section.substring(0, next);
        List<String> documented = new ArrayList<>();
        Matcher row = ROW.matcher(section);
        while (row.find()) {
            documented.add(row.group(1));
        }
        assertTrue(documented.size() >= 5, "the table's Ferry rows: " + documented);
        List<Pattern> patterns = documented.stream().map(key -> Pattern.compile(key.replaceAll("<[A-Z]+>", "[A-Z_0-9]+"))).toList();
        List<String> keys = new ArrayList<>(ExchangeMetrics.unregistered().asMap().keySet());
        for (String key : keys) {
            List<String> matching = new ArrayList<>();
            for (int i = 0; i < patterns.size(); i++) {
                if (patterns.get(i).matcher(key).matches()) {
                    matching.add(documented.get(i));
                }
            }
            assertEquals(1, matching.size(), "metric " + key + " must match exactly one documented key: " + matching);
        }
        for (int i = 0; i < patterns.size(); i++) {
            Pattern pattern = patterns.get(i);
            assertTrue(keys.stream().anyMatch(key -> pattern.matcher(key).matches()), "documented key " + documented.get(i) + " is no metric of the exchange: " + keys);
        }
    }
}
