package dev.ferry.examples.bench.transport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import dev.ferry.shuffle.transport.routing.PeerRoute;
import dev.ferry.topology.route.Route;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/** Measures the baselines once and each route against them: one warm-up fetch, then the best of the timed ones. */
public final class TransportRuns
{
    private static final int BLOCKS = 8;

    private final Path repository;
    private final Path scratch;
    private final TransportOptions options;
    private final int blockBytes;
    private final double memcpy;
    private final double loopback;

    public TransportRuns(Path repository, Path scratch, TransportOptions options)
            throws IOException, InterruptedException
    {
        this.repository = repository;
        this.scratch = scratch;
        this.options = options;
        this.blockBytes = options.megabytes * (1 << 20) / BLOCKS;
        this.memcpy = Baselines.memcpyGBps(BLOCKS, blockBytes, options.runs);
        this.loopback = Baselines.loopbackTcpGBps(BLOCKS * blockBytes, options.runs);
    }

    public double memcpyGBps()
    {
        return memcpy;
    }

    public double loopbackGBps()
    {
        return loopback;
    }

    public RouteResult measure(RouteCase route)
            throws Exception
    {
        double baseline = route.sameNode() ? memcpy : loopback;
        if (route.notMeasured().isPresent()) {
            return new RouteResult(route, false, 0, 0, baseline, route.notMeasured().get());
        }
        long total = (long) BLOCKS * blockBytes;
        Path directory = Files.createDirectories(scratch.resolve(route.label()));
        try (BufferAllocator allocator = new RootAllocator();
                RouteEndpoints endpoints = new RouteEndpoints(repository, route.topology(), route.self(), route.peer(), route.deviceBlocks(), route.readerDevice(),
                        route.peerProcess(), BLOCKS, blockBytes, allocator, directory, route.encrypted())) {
            PeerRoute choice = endpoints.choice();
            RouteEndpoints.Fetch fetch = endpoints.fetchAll(allocator, total);
            long best = Long.MAX_VALUE;
            long bestFetchOnly = Long.MAX_VALUE;
            for (int run = 0; run < options.runs; run++) {
                fetch = endpoints.fetchAll(allocator, total);
                best = Math.min(best, fetch.totalNanos());
                bestFetchOnly = Math.min(bestFetchOnly, fetch.fetchNanos());
            }
            Route carried = fetch.carried();
            String note = carried == route.route() ? "" : "carried " + carried + " (" + choice.reason() + ")";
            return new RouteResult(route, true, total / (double) best, total / (double) bestFetchOnly, baseline, note);
        }
    }

    public void deleteScratch()
            throws IOException
    {
        try (Stream<Path> paths = Files.walk(scratch)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
