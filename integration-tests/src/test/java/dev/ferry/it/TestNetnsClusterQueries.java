package dev.ferry.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two nodes, each a network namespace with one Worker and its executor, joined over a bridge by
 * links shaped to 1 Gbit/s each way ({@link NetnsClusterExtension}); the demo's five queries
 * submitted with {@code spark-submit} from node 0 with the plugin jar, each run with Ferry's exchange
 * and with Spark's sort shuffle in one application ({@code bin/ferry bench cluster}'s driver). Each
 * node's Ferry finds itself in the generated topology file by its host name, so blocks between the
 * nodes take the TCP route over the shaped links and blocks of its own node the local one. Asserts
 * both sides' results are equal (digests of the sorted rows), Ferry's exchange ran with bytes on the
 * TCP route, and the links carried bytes by the kernel's counters. The extension asserts the
 * teardown left nothing behind.
 */
class TestNetnsClusterQueries
{
    private static final String DRIVER = "dev.ferry.examples.bench.ClusterBenchmark";
    private static final int DEMO_QUERIES = 5;
    private static final Pattern QUERY = Pattern.compile("^cluster-query (\\S+) rows=(\\d+) ferryDigest=(\\w+) sparkDigest=(\\w+) ferryWire=(\\d+) sparkWire=(\\d+) "
            + "ferry\\.exchanges;ferry=(\\d+);spark=(\\d+);\\S*?route\\.TCP=(\\d+)\\S* spark\\.exchanges;ferry=(\\d+);spark=(\\d+);.*$", Pattern.MULTILINE);

    @RegisterExtension
    static final NetnsClusterExtension CLUSTER = new NetnsClusterExtension(2, "1gbit", "1g");

    @Test
    @Timeout(value = 420, unit = TimeUnit.SECONDS)
    void demoQueriesAgreeWithSparkAcrossShapedLinks()
            throws IOException, InterruptedException
    {
        Path directory = CLUSTER.directory();
        List<String> arguments = List.of(
                "--name", "ferry-netns-demo-queries",
                "--driver-memory", "768m",
                "--jars", ExampleJars.pluginJar(directory).toString(),
                "--conf", "spark.plugins=dev.ferry.FerryPlugin",
                "--conf", "spark.shuffle.manager=dev.ferry.shuffle.FerryShuffleManager",
                "--conf", "spark.ferry.enabled=true",
                "--conf", "spark.executor.cores=1",
                "--conf", "spark.cores.max=2",
                "--conf", "spark.executor.memory=640m",
                "--conf", "spark.executor.extraJavaOptions=-XX:+UseSerialGC -XX:TieredStopAtLevel=1",
                "--conf", "spark.ui.enabled=false",
                "--conf", "spark.sql.shuffle.partitions=4",
                "--conf", "spark.scheduler.minRegisteredResourcesRatio=1.0",
                // Each node's link is 1 Gbit/s for its one executor core: 'auto' resolves to lz4 there (above the
                // 0.43 Gbit/s a core where zstd pays), which the executors log; checked below.
                "--conf", "spark.ferry.shuffle.compression.codec=auto",
                "--class", DRIVER,
                ExampleJars.examplesJar(directory, DRIVER).toString(),
                "--queries", "demo",
                "--rows", "20000",
                "--runs", "0",
                "--data", directory.resolve("data").toString());
        NetnsClusterExtension.Result submit = CLUSTER.submit(arguments, directory.resolve("submit.log"), 360);
        String output = submit.output();
        assertEquals(0, submit.exitCode(), "spark-submit of the demo queries failed:\n" + StandaloneCluster.tail(directory.resolve("submit.log")));

        Matcher matcher = QUERY.matcher(output);
        List<String> names = new ArrayList<>();
        while (matcher.find()) {
            String name = matcher.group(1);
            names.add(name);
            assertTrue(Long.parseLong(matcher.group(2)) > 0, name + " returned no rows");
            assertEquals(matcher.group(4), matcher.group(3), name + ": Ferry's rows differ from Spark's sort shuffle's");
            assertTrue(Long.parseLong(matcher.group(5)) > 0 && Long.parseLong(matcher.group(6)) > 0, name + ": no bytes crossed the links by their counters:\n" + matcher.group());
            assertTrue(Integer.parseInt(matcher.group(7)) > 0 && matcher.group(8).equals("0"), name + ": with Ferry on, the plan was not Ferry's exchanges only:\n" + matcher.group());
            assertTrue(Long.parseLong(matcher.group(9)) > 0, name + ": no block took Ferry's TCP route between the nodes:\n" + matcher.group());
            assertTrue(matcher.group(10).equals("0") && Integer.parseInt(matcher.group(11)) > 0, name + ": with Ferry off, Spark's exchange did not run:\n" + matcher.group());
        }
        assertEquals(DEMO_QUERIES, names.size(), "Expected the demo's " + DEMO_QUERIES + " queries, found " + names + " in:\n" + output);
        assertTrue(output.contains("all queries: Spark/Ferry ") && output.contains(", results identical"), "No summary line saying the results are identical:\n" + output);
        String executorLogs = executorLogs(directory.resolve("cluster"));
        assertTrue(executorLogs.contains("Ferry shuffle codec auto on executor") && executorLogs.contains(": lz4 (node node1's link 1 Gbit/s over 1 core = 1.00 Gbit/s a core"),
                "No executor logged codec auto's decision for node 1's 1 Gbit/s link:\n" + executorLogs.lines().filter(line -> line.contains("codec")).toList());
    }

    /** Every executor's stderr under the Workers' work directories. */
    private static String executorLogs(Path cluster)
            throws IOException
    {
        StringBuilder logs = new StringBuilder();
        try (Stream<Path> files = Files.walk(cluster)) {
            for (Path file : files.filter(path -> path.getFileName().toString().equals("stderr") && path.toString().contains("/work-")).toList()) {
                logs.append(Files.readString(file)).append('\n');
            }
        }
        return logs.toString();
    }
}
