package dev.ferry.examples.bench.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * Bytes on the links between the nodes of a {@code scripts/netns-cluster.sh} cluster, read from the
 * kernel: the {@code tx_bytes} of each node's {@code eth0} ({@code ip -s link}) summed over nodes, so
 * every byte that crossed to another node counts once, at its sender, whatever process sent it
 * (shuffle blocks, task results, RPC). Bytes a node sends to itself go over its loopback and are not
 * counted, as on a real cluster.
 */
public final class WireCounters
{
    private static final Pattern LINE = Pattern.compile("^node=(\\d+) tx_bytes=(\\d+) tx_packets=(\\d+) rx_bytes=(\\d+) rx_packets=(\\d+) qdisc_sent_bytes=(\\d+) qdisc_dropped=(\\d+).*$");
    private static final long TIMEOUT_SECONDS = 30;

    private final Path script;
    private final String run;
    private final int nodes;

    public WireCounters(Path script, String run, int nodes)
    {
        this.script = requireNonNull(script, "script is null");
        this.run = requireNonNull(run, "run is null");
        this.nodes = nodes;
    }

    /** The cluster the driver runs in, from the environment {@code netns-cluster.sh} gives node 0's processes. */
    public static WireCounters fromEnvironment()
    {
        String script = System.getenv("FERRY_NETNS_SCRIPT");
        String run = System.getenv("FERRY_NETNS_RUN");
        String nodes = System.getenv("FERRY_NETNS_NODES");
        if (script == null || run == null || nodes == null) {
            throw new IllegalStateException("Not inside a scripts/netns-cluster.sh cluster: FERRY_NETNS_SCRIPT, FERRY_NETNS_RUN and FERRY_NETNS_NODES must be set "
                    + "(start it with bin/ferry bench cluster)");
        }
        return new WireCounters(Path.of(script), run, Integer.parseInt(nodes));
    }

    public int nodes()
    {
        return nodes;
    }

    /** Bytes sent, summed over every node's link, since the links were made; also the tbf's drops. */
    public Reading read()
    {
        try {
            Process process = new ProcessBuilder(script.toString(), "counters", "--run", run).redirectErrorStream(true).start();
            byte[] output = process.getInputStream().readAllBytes();
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(script + " counters --run " + run + " did not finish within " + TIMEOUT_SECONDS + " s");
            }
            String text = new String(output, StandardCharsets.UTF_8);
            if (process.exitValue() != 0) {
                throw new IllegalStateException(script + " counters --run " + run + " failed (" + process.exitValue() + "): " + text);
            }
            return parse(text, nodes);
        }
        catch (IOException e) {
            throw new IllegalStateException("Could not run " + script + " counters --run " + run, e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted reading the link counters", e);
        }
    }

    /** Sums the script's {@code counters} lines; every node must be there exactly once. */
    static Reading parse(String text, int nodes)
    {
        long sent = 0;
        long dropped = 0;
        boolean[] seen = new boolean[nodes];
        for (String line : text.lines().toList()) {
            Matcher matcher = LINE.matcher(line.trim());
            if (!matcher.matches()) {
                throw new IllegalStateException("Unexpected line from netns-cluster.sh counters: '" + line + "'");
            }
            int node = Integer.parseInt(matcher.group(1));
            if (node < 0 || node >= nodes || seen[node]) {
                throw new IllegalStateException("netns-cluster.sh counters listed node " + node + " out of place (" + nodes + " nodes): " + text);
            }
            seen[node] = true;
            sent += Long.parseLong(matcher.group(2));
            dropped += Long.parseLong(matcher.group(7));
        }
        for (int node = 0; node < nodes; node++) {
            if (!seen[node]) {
                throw new IllegalStateException("netns-cluster.sh counters did not list node " + node + ": " + text);
            }
        }
        return new Reading(sent, dropped);
    }

    /** Cumulative bytes sent over all links and packets the shapers dropped. */
    public record Reading(long bytesSent, long shaperDrops)
    {
        public Reading minus(Reading earlier)
        {
            return new Reading(bytesSent - earlier.bytesSent, shaperDrops - earlier.shaperDrops);
        }
    }
}
