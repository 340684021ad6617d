package dev.ferry.it;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A link taken down mid-shuffle on a two-node network-namespace cluster and brought back: node 1's
 * link goes down ({@code ip link set down}) as the join's reduce stage starts and comes back after
 * 20 seconds. Ferry's TCP transport retries a connect three times with a 3 s timeout here, so the
 * outage outlasts its retries (a 6 s outage did not: the retries rode it out) but not
 * {@code spark.network.timeout} (30 s), so node 1's executor is not declared lost. The reduce tasks'
 * fetches from node 1 fail naming its address, Spark reruns the stage, and the join must return the same row
 * as with Spark's sort shuffle and no fault. Bounded: the submit gets 300 s.
 */
class TestNetnsLinkFault
{
    private static final String JOB = "dev.ferry.examples.bench.cluster.LinkFaultJob";
    private static final Pattern SUMMARY = Pattern.compile("^link-fault node=1 downSeconds=20 linkTakenDown=true fetchFailures=(\\d+) stageRetries=(\\d+)$", Pattern.MULTILINE);

    @RegisterExtension
    static final NetnsClusterExtension CLUSTER = new NetnsClusterExtension(2, "1gbit", "1g");

    @Test
    @Timeout(value = 360, unit = TimeUnit.SECONDS)
    void joinSurvivesALinkTakenDownMidShuffle()
            throws IOException, InterruptedException
    {
        Path directory = CLUSTER.directory();
        List<String> arguments = List.of(
                "--name", "ferry-netns-link-fault",
                "--driver-memory", "768m",
                "--jars", ExampleJars.pluginJar(directory).toString(),
                "--conf", "spark.plugins=dev.ferry.FerryPlugin",
                "--conf", "spark.shuffle.manager=dev.ferry.shuffle.FerryShuffleManager",
                "--conf", "spark.ferry.enabled=true",
                "--conf", "spark.ferry.shuffle.tcp.timeoutMillis=3000",
                "--conf", "spark.network.timeout=30s",
                "--conf", "spark.network.timeoutInterval=10s",
                "--conf", "spark.executor.cores=1",
                "--conf", "spark.cores.max=2",
                "--conf", "spark.executor.memory=640m",
                "--conf", "spark.executor.extraJavaOptions=-XX:+UseSerialGC -XX:TieredStopAtLevel=1",
                "--conf", "spark.ui.enabled=false",
                "--conf", "spark.sql.shuffle.partitions=4",
                "--conf", "spark.scheduler.minRegisteredResourcesRatio=1.0",
                "--class", JOB,
                ExampleJars.examplesJar(directory, JOB).toString(),
                "--rows", "300000",
                "--node", "1",
                "--down-seconds", "20",
                "--data", directory.resolve("data").toString());
        NetnsClusterExtension.Result submit = CLUSTER.submit(arguments, directory.resolve("submit.log"), 300);
        String output = submit.output();
        assertEquals(0, submit.exitCode(), "The link-fault job failed:\n" + StandaloneCluster.tail(directory.resolve("submit.log")));
        Matcher summary = SUMMARY.matcher(output);
        assertTrue(summary.find(), "No summary showing the link was taken down and restored:\n" + output);
        assertTrue(Integer.parseInt(summary.group(1)) > 0, "No fetch failed while node 1's link was down:\n" + output);
        // Ferry's block server advertises the node's address: node 1 is 10.213.<run>.2.
        String nodeOne = "10.213." + CLUSTER.runId() + ".2";
        assertTrue(output.contains("link-fault fetch failure from " + nodeOne + ": ") && output.contains(" at " + nodeOne + ":"),
                "No fetch failure named node 1's address " + nodeOne + ":\n" + output);
        assertTrue(output.contains("link-fault results identical"), "The join's result after the fault differs from Spark's:\n" + output);
    }
}
