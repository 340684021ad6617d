package dev.ferry.examples.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.ferry.examples.bench.transport.RouteCase;
import dev.ferry.examples.launch.SparkJvm;
import dev.ferry.examples.bench.transport.RouteResult;
import dev.ferry.examples.bench.transport.TransportOptions;
import dev.ferry.examples.bench.transport.TransportRuns;

/**
 * {@code bin/ferry bench transport}: each simulated route's throughput between two transport
 * endpoints built from the classes the shuffle uses (block server, host map output store in shared
 * memory, routing transport, simulated verbs, simulated GPU store), in one JVM except for the CUDA
 * IPC routes (NVLINK, PCIE_P2P), whose peer runs in a second JVM ({@code DevicePeerProcess}) because
 * IPC handles open only in another process. Each fetch is followed by one read of every fetched
 * byte, and the result is a fraction of this machine's host memcpy of the same blocks followed by
 * the same read (same-node routes) or of loopback TCP bandwidth (cross-node routes), both measured
 * in the same run. The same-node target is 0.8.
 */
public final class TransportBenchmark
{
    private static final double SAME_NODE_TARGET = 0.8;

    private TransportBenchmark() {}

    /** The checkout whose examples/topologies place the endpoints: above this class's location (bin/ferry runs it from examples/target/classes), else the working directory. */
    private static Path repository()
            throws Exception
    {
        Path start = Path.of(TransportBenchmark.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toAbsolutePath();
        for (Path candidate = start; candidate != null; candidate = candidate.getParent()) {
            if (Files.isDirectory(candidate.resolve("examples/topologies"))) {
                return candidate;
            }
        }
        Path working = Path.of("").toAbsolutePath();
        if (!Files.isDirectory(working.resolve("examples/topologies"))) {
            throw new IllegalStateException("Cannot find examples/topologies above " + start + " or in " + working + "; run bin/ferry bench transport from a Ferry checkout");
        }
        return working;
    }

    public static void main(String[] args)
            throws Exception
    {
        // Arrow's direct buffers need the JDK internals Spark opens; rerun with them if missing.
        int childExit = SparkJvm.relaunchIfNeeded(TransportBenchmark.class, args);
        if (childExit >= 0) {
            System.exit(childExit);
        }
        TransportOptions options = TransportOptions.parse(args);
        Path repository = repository();
        Path scratch = Files.createTempDirectory("ferry-bench-transport-");
        TransportRuns runs = new TransportRuns(repository, scratch, options);
        System.out.printf("Ferry transport benchmark: %d MiB per fetch in 8 blocks, best of %d runs after a warm-up%n", options.megabytes, options.runs);
        System.out.printf("baseline memcpy (8 blocks into warm direct buffers, then read once): %6.2f GB/s%n", runs.memcpyGBps());
        System.out.printf("baseline loopback TCP (plain sockets):                             %6.2f GB/s%n", runs.loopbackGBps());
        System.out.printf("GB/s and fraction: fetch plus one read of every fetched byte; fetch-only: without that read%n%n");
        System.out.printf("%-17s %-10s %9s %9s %9s  %s%n", "route", "vs", "GB/s", "fraction", "fetch-only", "note");
        List<RouteResult> results = new ArrayList<>();
        for (RouteCase route : RouteCase.all()) {
            RouteResult result = runs.measure(route);
            results.add(result);
            System.out.println(result.line(SAME_NODE_TARGET));
        }
        runs.deleteScratch();
        long missed = results.stream().filter(result -> result.sameNode() && result.measured() && result.fraction() < SAME_NODE_TARGET).count();
        System.out.printf("%nsame-node routes below the %.1f target: %d%n", SAME_NODE_TARGET, missed);
    }
}
