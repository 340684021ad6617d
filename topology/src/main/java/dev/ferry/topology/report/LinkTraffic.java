package dev.ferry.topology.report;

import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.route.Route;
import dev.ferry.topology.route.RouteDecision;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import static java.util.Objects.requireNonNull;

/**
 * Puts the bytes each executor read per route on the links of a {@link DecisionReport} drawing, as
 * {@link SvgRenderer#render(DecisionReport, Map)} keys. Shuffle counters are kept by the reading
 * executor, so a link is annotated with what the executor on its GPU received over it:
 * <ul>
 * <li>GPU-to-GPU routes ({@code NVLINK}, {@code PCIE_P2P}, {@code HOST_STAGED}): the reader GPU's link to the
 * NVSwitch bar, or, without a switch, the pair link to the one other placed GPU of its node;</li>
 * <li>{@code GPUDIRECT_RDMA} and {@code RDMA_HOST_STAGED}: the reader GPU's link to its closest NIC, and the
 * network line between the two nodes;</li>
 * <li>host network routes ({@code RDMA}, {@code IPOIB_TCP}, {@code TCP}): the network line;</li>
 * <li>{@code PEER_GPU_D2H} (a peer GPU's block read into host memory): the total only; it crossed the
 * sending GPU's PCIe link to host memory, which the drawing has no line for, and no GPU-to-GPU link;</li>
 * <li>file routes into a GPU ({@code GDS}, {@code BOUNCE}): the reader GPU's link to its closest NVMe drive, under
 * that route's own key ({@link SvgRenderer#linkKey(String, String, String, Route)}), so BOUNCE bytes over a link
 * decided GDS are drawn as BOUNCE;</li>
 * <li>every route: its total, for the legend.</li>
 * </ul>
 * Where the sender cannot be told from the reader alone (more than one other GPU on a node without a switch,
 * more than two nodes), only the total is kept and a note says why.
 */
public final class LinkTraffic
{
    private static final Set<Route> GPU_PAIR_ROUTES = Set.of(Route.NVLINK, Route.PCIE_P2P, Route.HOST_STAGED);
    private static final Set<Route> GPU_NIC_ROUTES = Set.of(Route.GPUDIRECT_RDMA, Route.RDMA_HOST_STAGED);
    private static final Set<Route> GPU_FILE_ROUTES = Set.of(Route.GDS, Route.BOUNCE);
    private static final Set<Route> NETWORK_ROUTES = Set.of(Route.GPUDIRECT_RDMA, Route.RDMA_HOST_STAGED, Route.RDMA, Route.IPOIB_TCP, Route.TCP);

    /** Where an executor sits in the topology: its node, and its GPU when the node has one. */
    public record Place(String host, Optional<String> gpu)
    {
        public Place
        {
            requireNonNull(host, "host is null");
            requireNonNull(gpu, "gpu is null");
        }
    }

    /** The drawing's byte keys, and notes on bytes that could only be counted per route. */
    public record Attribution(Map<String, Long> bytes, List<String> notes)
    {
    }

    private LinkTraffic() {}

    /**
     * @param places executor id to its place
     * @param readBytes executor id to route name to bytes its tasks read; {@code LOCAL} (the executor's own store) and names
     *     that are not {@link Route}s are left out of the drawing
     */
    public static Attribution attribute(DecisionReport report, Map<String, Place> places, Map<String, Map<String, Long>> readBytes)
    {
        requireNonNull(report, "report is null");
        Map<String, Long> bytes = new TreeMap<>();
        List<String> notes = new ArrayList<>();
        readBytes.forEach((executor, routes) -> routes.forEach((name, count) -> {
            Optional<Route> route = route(name);
            // LOCAL is the executor's own store: no link carried it (the route table shows it).
            if (route.isEmpty() || route.get() == Route.LOCAL || count <= 0) {
                return;
            }
            bytes.merge(route.get().name(), count, Long::sum);
            Place place = places.get(executor);
            if (place == null) {
                notes.add("executor " + executor + " has no place in the topology; its " + name + " bytes are in the route total only");
                return;
            }
            Optional<NodeDecisions> node = report.nodes().stream().filter(decisions -> decisions.node().hostname().equals(place.host())).findFirst();
            if (node.isEmpty()) {
                notes.add("executor " + executor + " is placed on " + place.host() + ", not a node of " + report.cluster().name());
                return;
            }
            if (GPU_PAIR_ROUTES.contains(route.get()) && place.gpu().isPresent()) {
                gpuPairKey(node.get(), place, places).ifPresentOrElse(key -> bytes.merge(key, count, Long::sum),
                        () -> notes.add(name + " bytes read by executor " + executor + " on " + place.host() + " came from one of several GPUs; in the route total only"));
            }
            if (GPU_NIC_ROUTES.contains(route.get()) && place.gpu().isPresent()) {
                closestNic(node.get(), place.gpu().get()).ifPresent(nic -> bytes.merge(SvgRenderer.linkKey(place.host(), place.gpu().get(), nic), count, Long::sum));
            }
            if (GPU_FILE_ROUTES.contains(route.get()) && place.gpu().isPresent()) {
                closestNvme(node.get(), place.gpu().get()).ifPresent(nvme -> bytes.merge(SvgRenderer.linkKey(place.host(), place.gpu().get(), nvme, route.get()), count, Long::sum));
            }
            if (NETWORK_ROUTES.contains(route.get())) {
                if (report.nodes().size() == 2) {
                    bytes.merge(SvgRenderer.networkKey(report.nodes().get(0).node().hostname(), report.nodes().get(1).node().hostname()), count, Long::sum);
                }
                else {
                    notes.add(name + " bytes of executor " + executor + ": with " + report.nodes().size() + " nodes the sending node is not known; in the route total only");
                }
            }
        }));
        return new Attribution(bytes, List.copyOf(notes));
    }

    private static Optional<Route> route(String name)
    {
        for (Route route : Route.values()) {
            if (route.name().equals(name)) {
                return Optional.of(route);
            }
        }
        return Optional.empty();
    }

    /** The reader GPU's link to the NVSwitch bar, else its pair link to the only other placed GPU of its node. */
    private static Optional<String> gpuPairKey(NodeDecisions decisions, Place reader, Map<String, Place> places)
    {
        String gpu = reader.gpu().orElseThrow();
        NodeTopology node = decisions.node();
        if (SvgRenderer.switchedGpus(node, decisions.gpuPairs()).contains(gpu)) {
            return Optional.of(SvgRenderer.linkKey(node.hostname(), gpu, SvgRenderer.NVSWITCH));
        }
        List<String> others = places.values().stream()
                .filter(place -> place.host().equals(node.hostname()) && place.gpu().isPresent() && !place.gpu().get().equals(gpu))
                .map(place -> place.gpu().get())
                .distinct()
                .toList();
        return others.size() == 1 ? Optional.of(SvgRenderer.linkKey(node.hostname(), gpu, others.get(0))) : Optional.empty();
    }

    /** The NVMe drive closest to {@code gpu} (the drawing's closest path class), ties by name. */
    private static Optional<String> closestNvme(NodeDecisions decisions, String gpu)
    {
        return decisions.gpuNvmes().stream()
                .filter(decision -> decision.source().equals(gpu))
                .min(Comparator.comparingInt(SvgRenderer::rank).thenComparing(RouteDecision::target))
                .map(RouteDecision::target);
    }

    /** The NIC closest to {@code gpu} (the drawing's closest path class), ties by name. */
    private static Optional<String> closestNic(NodeDecisions decisions, String gpu)
    {
        return decisions.gpuNics().stream()
                .filter(decision -> decision.source().equals(gpu))
                .min(Comparator.comparingInt(SvgRenderer::rank).thenComparing(RouteDecision::target))
                .map(RouteDecision::target);
    }
}
