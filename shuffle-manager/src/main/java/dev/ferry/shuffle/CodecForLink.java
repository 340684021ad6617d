package dev.ferry.shuffle;

import java.util.Locale;
import java.util.Optional;

import dev.ferry.shuffle.format.CompressionKind;
import dev.ferry.shuffle.placement.ExecutorTopology;
import dev.ferry.topology.model.NetInterface;
import dev.ferry.topology.model.Nic;
import dev.ferry.topology.model.NodeTopology;

import static java.util.Objects.requireNonNull;

/**
 * What {@code spark.ferry.shuffle.compression.codec=auto} becomes for a map task: the codec that costs
 * least end to end on the link its blocks will cross. Per byte of input, zstd level 1 spends more CPU
 * than lz4 and sends fewer bytes; it wins where a core's share of the link is slow enough that the
 * bytes it saves take longer to send than its extra CPU takes.
 *
 * <p>The break-even comes from the encoder harness in docs/benchmarks.md (the same map outputs,
 * encoded and decoded): lz4 452 + 54 ms for 33.9 MB, zstd 593 + 151 ms for 21.0 MB, so zstd's extra
 * 0.238 s saves 12.9 MB: it pays below 12.9 MB / 0.238 s = 54 MB/s = 0.43 Gbit/s per core. The
 * link per core is the node's fastest up link (an RDMA NIC's active port, else an Ethernet interface's
 * speed) over this executor's cores (the tasks that share it at once; several executors on one node
 * share it further, which this does not see).
 */
public final class CodecForLink
{
    /** Below this link rate per core (Gbit/s), zstd's smaller blocks save more time than its CPU costs. */
    static final double ZSTD_BELOW_GBITS_PER_CORE = 0.43;

    private CodecForLink() {}

    /** A resolved codec and why. */
    public record Decision(CompressionKind codec, String reason)
    {
        public Decision
        {
            requireNonNull(codec, "codec is null");
            requireNonNull(reason, "reason is null");
        }
    }

    public static Decision choose(Optional<ExecutorTopology.Known> topology, int executorCores)
    {
        if (topology.isEmpty()) {
            return new Decision(CompressionKind.ZSTD, "no cluster map (no topology file, no probed view), so the link is unknown: zstd, the fewer bytes");
        }
        ExecutorTopology.Known known = topology.get();
        if (known.cluster().nodes().size() <= 1) {
            return new Decision(CompressionKind.LZ4, "every executor is on node " + known.place().node() + ": blocks cross memory, not a link, so lz4, the less CPU");
        }
        Optional<NodeTopology> node = known.cluster().node(known.place().node());
        double gbits = node.map(CodecForLink::fastestLinkGbits).orElse(0.0);
        if (gbits <= 0) {
            return new Decision(CompressionKind.ZSTD, "node " + known.place().node() + "'s link speed is unknown: zstd, the fewer bytes");
        }
        int cores = Math.max(1, executorCores);
        double perCore = gbits / cores;
        String measured = String.format(Locale.ROOT, "node %s's link %s Gbit/s over %d core%s = %.2f Gbit/s a core", known.place().node(), rate(gbits), cores,
                cores == 1 ? "" : "s", perCore);
        if (perCore < ZSTD_BELOW_GBITS_PER_CORE) {
            return new Decision(CompressionKind.ZSTD, measured + ", below zstd's break-even " + ZSTD_BELOW_GBITS_PER_CORE + ": the bytes cost more than zstd's CPU");
        }
        return new Decision(CompressionKind.LZ4, measured + ", at or above zstd's break-even " + ZSTD_BELOW_GBITS_PER_CORE + ": lz4's CPU saving outweighs its bytes");
    }

    /** The node's fastest up link in Gbit/s: an RDMA NIC's active port or an Ethernet/IPoIB interface; 0 when none is known. */
    static double fastestLinkGbits(NodeTopology node)
    {
        double fastest = 0;
        for (Nic nic : node.nics()) {
            fastest = Math.max(fastest, nic.activeRateGbps());
        }
        for (NetInterface netInterface : node.netInterfaces()) {
            // Ethernet and IPoIB carry TCP between nodes; OTHER (bridges, tunnels) may be anything.
            if (netInterface.up() && netInterface.speedMbps() > 0 && netInterface.kind() != NetInterface.Kind.OTHER) {
                fastest = Math.max(fastest, netInterface.speedMbps() / 1000.0);
            }
        }
        return fastest;
    }

    private static String rate(double gbits)
    {
        return gbits == Math.rint(gbits) ? Long.toString((long) gbits) : String.format(Locale.ROOT, "%.2f", gbits);
    }
}
