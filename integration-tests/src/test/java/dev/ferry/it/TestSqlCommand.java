package dev.ferry.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code bin/ferry sql}'s entry point as a user runs it: a fresh JVM, a script over a Parquet view, CSV out, routes on stderr. */
class TestSqlCommand
{
    private static final Pattern ROUTE = Pattern.compile("^route (\\w+) bytes=(\\d+) blocks=(\\d+)$", Pattern.MULTILINE);

    private record Run(int exitCode, String stdout, String stderr)
    {
    }

    private static Run sql(Path directory, String... args)
            throws IOException, InterruptedException
    {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add("dev.ferry.examples.sql.SqlCommand");
        command.addAll(List.of(args));
        Path stdout = Files.createTempFile(directory, "stdout", ".csv");
        Path stderr = Files.createTempFile(directory, "stderr", ".txt");
        Process process = new ProcessBuilder(command).directory(directory.toFile())
                .redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
        assertTrue(process.waitFor(240, TimeUnit.SECONDS), "bin/ferry sql did not finish");
        return new Run(process.exitValue(), Files.readString(stdout, StandardCharsets.UTF_8), Files.readString(stderr, StandardCharsets.UTF_8));
    }

    @Test
    void printsTheLastResultAsCsvWithAndWithoutFerry(@TempDir Path directory)
            throws IOException, InterruptedException
    {
        Path parquet = directory.resolve("pq");
        Path script = directory.resolve("query.sql");
        Files.writeString(script, "INSERT OVERWRITE DIRECTORY '" + parquet + "' USING parquet "
                + "SELECT id, id % 5 AS k, IF(id % 3 = 0, NULL, CONCAT('v,\"', id)) AS v FROM range(500);\n"
                + "CREATE TEMPORARY VIEW pq USING parquet OPTIONS (path '" + parquet + "');\n"
                + "-- the last statement's result is printed; this comment has a ; in it\n"
                + "SELECT k, count(*) AS n, max(v) AS top, min(id) AS low FROM pq GROUP BY k ORDER BY k\n");
        Run ferry = sql(directory, "--routes", "--conf", "spark.sql.shuffle.partitions=4", "-f", script.toString());
        assertEquals(0, ferry.exitCode(), ferry.stderr());
        Run spark = sql(directory, "--ferry", "off", "--routes", "--conf", "spark.sql.shuffle.partitions=4", "-f", script.toString());
        assertEquals(0, spark.exitCode(), spark.stderr());

        assertEquals(spark.stdout(), ferry.stdout());
        List<String> lines = ferry.stdout().lines().toList();
        assertEquals("k,n,top,low", lines.get(0));
        assertEquals(6, lines.size(), ferry.stdout());
        // max of 'v,"<id>' strings for k = 0 is 'v,"95': quoted, with the quote doubled.
        assertEquals("0,100,\"v,\"\"95\",0", lines.get(1));

        assertTrue(routeBytes(ferry.stderr(), "LOCAL") > 0, ferry.stderr());
        assertEquals(0, routeBytes(spark.stderr(), "LOCAL"), "Spark's own shuffle carries nothing over Ferry's routes");
    }

    @Test
    void rejectsBadArguments(@TempDir Path directory)
            throws IOException, InterruptedException
    {
        Run run = sql(directory, "--ferry", "maybe", "-e", "SELECT 1");
        assertEquals(2, run.exitCode());
        assertTrue(run.stderr().contains("usage: bin/ferry sql"), run.stderr());
    }

    private static long routeBytes(String stderr, String route)
    {
        Matcher matcher = ROUTE.matcher(stderr);
        while (matcher.find()) {
            if (matcher.group(1).equals(route)) {
                return Long.parseLong(matcher.group(2));
            }
        }
        throw new AssertionError("no route " + route + " line in:\n" + stderr);
    }
}
