package dev.ferry.topology.route;

import dev.ferry.topology.model.LinkLayer;
import dev.ferry.topology.model.NetInterface;
import dev.ferry.topology.model.Nic;
import dev.ferry.topology.model.NodeTopology;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * Host memory to host memory between two nodes: RDMA when both have an active RDMA NIC of a common link
 * layer, TCP over IPoIB when both have IPoIB, otherwise TCP. One block uses one connection, so the
 * bandwidth is that of the best NIC pair, not the sum over rails.
 */
final class NodeRouteRule
{
    private static final String RULE_RDMA = "node-node: both ends have an active RDMA NIC of one link layer";
    private static final String RULE_IPOIB = "node-node: no common RDMA link, both ends have IPoIB";
    private static final String RULE_TCP = "node-node: no common RDMA link and no IPoIB on both ends";
    private static final String THRESHOLD = "active port required on both ends";
    private static final Set<NetInterface.Kind> IPOIB = EnumSet.of(NetInterface.Kind.IPOIB);
    // OTHER covers loopback and virtual links, which do not reach another node
    private static final Set<NetInterface.Kind> IP_CAPABLE = EnumSet.of(NetInterface.Kind.ETHERNET, NetInterface.Kind.IPOIB);

    private final BandwidthModel bandwidths;

    NodeRouteRule(BandwidthModel bandwidths)
    {
        this.bandwidths = requireNonNull(bandwidths, "bandwidths is null");
    }

    /** The chosen link layer and NICs when RDMA is possible. */
    record RdmaChoice(LinkLayer layer, Nic nicA, Nic nicB) {}

    RouteDecision decide(NodeTopology a, NodeTopology b)
    {
        String source = a.hostname();
        String target = b.hostname();
        if (source.equals(target)) {
            return new RouteDecision(source, target, Route.HOST_SHM, Optional.empty(), "X", 5000.0, "NCCL LOC_BW 5000 GB/s (same host)",
                    "node-node: same host", "none", Optional.empty(), List.of(), List.of(), source + " to itself: shared host memory");
        }
        List<String> vetoes = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        Optional<RdmaChoice> rdma = rdmaChoice(a, b, vetoes, notes);
        if (rdma.isPresent()) {
            RdmaChoice choice = rdma.get();
            Bandwidth bandwidth = bandwidths.nic(choice.nicA()).min(bandwidths.nic(choice.nicB()));
            int countA = NicChooser.active(a, choice.layer()).size();
            int countB = NicChooser.active(b, choice.layer()).size();
            if (countA > 1 || countB > 1) {
                notes.add(String.format(Locale.ROOT, "%s has %d and %s has %d active %s NICs; one block uses one NIC pair",
                        source, countA, target, countB, choice.layer().displayName()));
            }
            if (choice.layer() == LinkLayer.UNKNOWN) {
                notes.add("link layer unknown on both ends; assumed compatible");
            }
            return new RouteDecision(source, target, Route.RDMA, Optional.empty(), "NET", bandwidth.gbps(), bandwidth.source(), RULE_RDMA, THRESHOLD,
                    Optional.of(new RunnerUp(fallback(a, b), "RDMA bypasses the kernel network stack")), vetoes, notes,
                    String.format(Locale.ROOT, "%s <-> %s: RDMA over %s, %s (%s Gb/s) <-> %s (%s Gb/s)", source, target, choice.layer().displayName(),
                            choice.nicA().name(), Bandwidth.format(choice.nicA().activeRateGbps()), choice.nicB().name(), Bandwidth.format(choice.nicB().activeRateGbps())));
        }
        String whyNotRdma = vetoes.isEmpty() ? "no active RDMA NIC" : String.join("; ", vetoes);
        Optional<Long> ipoib = commonSpeed(a, b, IPOIB);
        if (ipoib.isPresent()) {
            Bandwidth bandwidth = bandwidths.tcp(ipoib.get(), "IPoIB");
            return new RouteDecision(source, target, Route.IPOIB_TCP, Optional.empty(), "NET", bandwidth.gbps(), bandwidth.source(), RULE_IPOIB, THRESHOLD,
                    Optional.of(new RunnerUp(Route.RDMA, whyNotRdma)), vetoes, notes,
                    source + " <-> " + target + ": RDMA ruled out (" + whyNotRdma + "); TCP over IPoIB");
        }
        Optional<Long> any = commonSpeed(a, b, IP_CAPABLE);
        if (any.isEmpty()) {
            notes.add("no interface that is up is known on both ends; TCP assumed");
        }
        Bandwidth bandwidth = bandwidths.tcp(any.orElse(0L), "interface");
        return new RouteDecision(source, target, Route.TCP, Optional.empty(), "NET", bandwidth.gbps(), bandwidth.source(), RULE_TCP, THRESHOLD,
                Optional.of(new RunnerUp(Route.RDMA, whyNotRdma)), vetoes, notes,
                source + " <-> " + target + ": RDMA ruled out (" + whyNotRdma + "), no IPoIB on both ends; TCP");
    }

    /** The best common link layer (highest rate of the slower end, then InfiniBand, RoCE, iWARP, unknown). */
    Optional<RdmaChoice> rdmaChoice(NodeTopology a, NodeTopology b, List<String> vetoes, List<String> notes)
    {
        describeInactive(a, vetoes, notes);
        describeInactive(b, vetoes, notes);
        Optional<RdmaChoice> best = Optional.empty();
        double bestRate = -1;
        for (LinkLayer layer : LinkLayer.values()) {
            List<Nic> nicsA = NicChooser.active(a, layer);
            List<Nic> nicsB = NicChooser.active(b, layer);
            if (nicsA.isEmpty() || nicsB.isEmpty()) {
                continue;
            }
            Nic nicA = fastest(nicsA);
            Nic nicB = fastest(nicsB);
            double rate = Math.min(nicA.activeRateGbps(), nicB.activeRateGbps());
            if (rate > bestRate) {
                bestRate = rate;
                best = Optional.of(new RdmaChoice(layer, nicA, nicB));
            }
        }
        if (best.isEmpty()) {
            List<String> layersA = activeLayers(a);
            List<String> layersB = activeLayers(b);
            if (!layersA.isEmpty() && !layersB.isEmpty()) {
                vetoes.add("no common link layer: " + a.hostname() + " has " + String.join("/", layersA) + ", "
                        + b.hostname() + " has " + String.join("/", layersB));
            }
            else {
                if (layersA.isEmpty()) {
                    vetoes.add(a.hostname() + " has no active RDMA NIC");
                }
                if (layersB.isEmpty()) {
                    vetoes.add(b.hostname() + " has no active RDMA NIC");
                }
            }
        }
        return best;
    }

    private static Nic fastest(List<Nic> nics)
    {
        Nic best = nics.get(0);
        for (Nic nic : nics) {
            if (nic.activeRateGbps() > best.activeRateGbps()) {
                best = nic;
            }
        }
        return best;
    }

    private static List<String> activeLayers(NodeTopology node)
    {
        List<String> layers = new ArrayList<>();
        for (LinkLayer layer : LinkLayer.values()) {
            if (!NicChooser.active(node, layer).isEmpty()) {
                layers.add(layer.displayName());
            }
        }
        return layers;
    }

    private static void describeInactive(NodeTopology node, List<String> vetoes, List<String> notes)
    {
        List<String> unknown = new ArrayList<>();
        for (Nic nic : node.nics()) {
            if (nic.ports().isEmpty()) {
                unknown.add(nic.name());
            }
        }
        if (!unknown.isEmpty()) {
            notes.add(node.hostname() + ": port state of " + String.join(", ", unknown)
                    + " unknown (e.g. from a capture), not counted as active; give ports in a topology file");
        }
    }

    private static Route fallback(NodeTopology a, NodeTopology b)
    {
        return commonSpeed(a, b, IPOIB).isPresent() ? Route.IPOIB_TCP : Route.TCP;
    }

    /**
     * The speed in Mb/s of the slower end's best up interface of one of {@code kinds}, when both ends have one;
     * 0 when either speed is unknown, since the slower end then cannot be told.
     */
    private static Optional<Long> commonSpeed(NodeTopology a, NodeTopology b, Set<NetInterface.Kind> kinds)
    {
        Optional<Long> speedA = bestSpeed(a, kinds);
        Optional<Long> speedB = bestSpeed(b, kinds);
        if (speedA.isEmpty() || speedB.isEmpty()) {
            return Optional.empty();
        }
        if (speedA.get() <= 0 || speedB.get() <= 0) {
            return Optional.of(0L);
        }
        return Optional.of(Math.min(speedA.get(), speedB.get()));
    }

    private static Optional<Long> bestSpeed(NodeTopology node, Set<NetInterface.Kind> kinds)
    {
        return node.netInterfaces().stream()
                .filter(NetInterface::up)
                .filter(netInterface -> kinds.contains(netInterface.kind()))
                .map(NetInterface::speedMbps)
                .max(Long::compare);
    }
}
