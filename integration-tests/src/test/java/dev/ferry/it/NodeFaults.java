package dev.ferry.it;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs {@code NodeFaultJob} (examples) on a network-namespace cluster and reads its summary: the
 * same spark-submit settings for every fault, so the faults differ only in what is done to the nodes.
 * The timeouts are those of a small cluster: Ferry's TCP connect gives up after three 3 s tries,
 * {@code spark.network.timeout} is 30 s, and the submit gets {@code SUBMIT_SECONDS}.
 */
final class NodeFaults
{
    static final long SUBMIT_SECONDS = 300;
    private static final String JOB = "dev.ferry.examples.bench.cluster.NodeFaultJob";
    private static final Pattern SUMMARY = Pattern.compile(
            "^node-fault fault=(\\S+) node=(\\d+) seconds=(\\d+) injected=true fetchFailures=(\\d+) stageRetries=(\\d+) executorsRemoved=(\\d+)$", Pattern.MULTILINE);

    private NodeFaults() {}

    /** What the job printed: its counts, and the whole output for the messages. */
    record Outcome(int fetchFailures, int stageRetries, int executorsRemoved, String output) {}

    static Outcome run(NetnsClusterExtension cluster, int executors, List<String> jobArguments)
            throws IOException, InterruptedException
    {
        return run(cluster, executors, List.of(), jobArguments);
    }

    /** As {@link #run(NetnsClusterExtension, int, List)}, with more {@code --conf key=value} settings. */
    static Outcome run(NetnsClusterExtension cluster, int executors, List<String> settings, List<String> jobArguments)
            throws IOException, InterruptedException
    {
        Path directory = cluster.directory();
        String fault = jobArguments.get(jobArguments.indexOf("--fault") + 1);
        List<String> arguments = new ArrayList<>(List.of(
                "--name", "ferry-netns-" + fault,
                "--driver-memory", "768m",
                "--jars", ExampleJars.pluginJar(directory).toString(),
                "--conf", "spark.plugins=dev.ferry.FerryPlugin",
                "--conf", "spark.shuffle.manager=dev.ferry.shuffle.FerryShuffleManager",
                "--conf", "spark.ferry.enabled=true",
                "--conf", "spark.ferry.shuffle.tcp.timeoutMillis=3000",
                "--conf", "spark.network.timeout=30s",
                "--conf", "spark.network.timeoutInterval=10s",
                "--conf", "spark.executor.cores=1",
                "--conf", "spark.cores.max=" + executors,
                "--conf", "spark.executor.memory=640m",
                "--conf", "spark.executor.extraJavaOptions=-XX:+UseSerialGC -XX:TieredStopAtLevel=1",
                "--conf", "spark.ui.enabled=false",
                "--conf", "spark.sql.shuffle.partitions=4",
                "--conf", "spark.scheduler.minRegisteredResourcesRatio=1.0"));
        settings.forEach(setting -> arguments.addAll(List.of("--conf", setting)));
        arguments.addAll(List.of("--class", JOB, ExampleJars.examplesJar(directory, JOB).toString()));
        arguments.addAll(jobArguments);
        arguments.addAll(List.of("--data", directory.resolve("data").toString()));
        Path log = directory.resolve("submit-" + fault + ".log");
        NetnsClusterExtension.Result submit = cluster.submit(arguments, log, SUBMIT_SECONDS);
        String output = submit.output();
        assertEquals(0, submit.exitCode(), "The " + fault + " job failed:\n" + StandaloneCluster.tail(log));
        Matcher summary = SUMMARY.matcher(output);
        assertTrue(summary.find(), "No summary showing the " + fault + " fault was injected:\n" + output);
        assertEquals(fault, summary.group(1));
        assertTrue(output.contains("node-fault results identical"), "The join's result after the " + fault + " differs from Spark's:\n" + output);
        return new Outcome(Integer.parseInt(summary.group(4)), Integer.parseInt(summary.group(5)), Integer.parseInt(summary.group(6)), output);
    }

    /** Whether {@code nft} runs here: the loss fault drops packets with nftables (this kernel has no netem). */
    static boolean nftablesInstalled()
    {
        try {
            Process process = new ProcessBuilder("nft", "--version").redirectErrorStream(true).start();
            process.getInputStream().readAllBytes();
            return process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS) && process.exitValue() == 0;
        }
        catch (IOException e) {
            return false;
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Node K's address in the cluster (the script gives node K 10.213.run.(K+1)); Ferry's block servers advertise it. */
    static String address(NetnsClusterExtension cluster, int node)
    {
        return "10.213." + cluster.runId() + "." + (node + 1);
    }

    /** A fetch failure the driver saw from {@code peer}, its message naming the peer's address and the route it was on. */
    static void assertFetchFailureNames(Outcome outcome, String peer, String route)
    {
        Pattern line = Pattern.compile("^node-fault fetch failure from " + Pattern.quote(peer) + ": .*" + Pattern.quote(route + " route: ") + ".*"
                + Pattern.quote(" at " + peer + ":") + ".*$", Pattern.MULTILINE);
        assertTrue(line.matcher(outcome.output()).find(), "No fetch failure from " + peer + " naming its address and the " + route + " route:\n" + outcome.output());
    }
}
