package dev.ferry.topology.report;

import dev.ferry.topology.model.Gpu;
import dev.ferry.topology.model.LinkLayer;
import dev.ferry.topology.model.Nic;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.model.NvmeDrive;
import dev.ferry.topology.model.PathClass;
import dev.ferry.topology.route.Route;
import dev.ferry.topology.route.RouteDecision;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static java.util.Objects.requireNonNull;

/**
 * Draws a {@link DecisionReport} as a standalone SVG document: one box per node with its GPUs in a row and
 * its RDMA NICs and NVMe drives below, the links between them labelled with path class and route, and one
 * line per node pair labelled with the host and GPU-resident routes and the link layer.
 * <p>
 * To stay legible it draws, for every NIC and NVMe drive, only its links to the GPUs of its closest path class;
 * for every GPU only its GPU pairs of its closest class; and GPUs NVLinked through NVSwitches as links to one
 * NVSwitch bar instead of every pair. The layout depends only on the report, so the same report always gives
 * the same document.
 * <p>
 * Traffic is optional: {@link #render(DecisionReport, Map)} takes bytes keyed by {@link #linkKey link},
 * {@link #networkKey node pair} or {@link Route} name. A link's bytes are printed on its label (a NIC's or drive's
 * links of one route share a label, which shows their sum), a node pair's on its line, route totals in a legend.
 */
public final class SvgRenderer
{
    /** The device name an NVSwitch bar has in {@link #linkKey}. */
    public static final String NVSWITCH = "NVSwitch";

    private static final int MARGIN = 20;
    private static final int SLOT = 124;
    private static final int BOX_W = 108;
    private static final int BOX_H = 40;
    private static final int NODE_GAP = 40;
    private static final int LANE = 34;
    private static final double CHAR_W = 6.1;

    private SvgRenderer() {}

    /** The drawing without traffic. */
    public static String render(DecisionReport report)
    {
        return render(report, Map.of());
    }

    /**
     * The drawing with traffic: {@code bytes} maps {@link #linkKey}, {@link #networkKey} or a {@link Route} name
     * ({@code "RDMA"}) to the bytes carried. Keys that match nothing drawn are ignored.
     */
    public static String render(DecisionReport report, Map<String, Long> bytes)
    {
        requireNonNull(report, "report is null");
        requireNonNull(bytes, "bytes is null");
        bytes.forEach((key, value) -> {
            if (key == null || value == null || value < 0) {
                throw new IllegalArgumentException("Byte counts need a key and a value >= 0, got " + key + "=" + value);
            }
        });
        return new Drawing(report, bytes).draw();
    }

    /**
     * The key of the bytes one route carried over a link inside a node, e.g. {@code dgx-a:GPU0<->nvme0 BOUNCE}: a link
     * is drawn with its decided route, and bytes under this key for another route get a line and label of their own.
     */
    public static String linkKey(String hostname, String deviceA, String deviceB, Route route)
    {
        return linkKey(hostname, deviceA, deviceB) + " " + route.name();
    }

    /** The key of a link inside a node, either order: e.g. {@code dgx-a:GPU0<->mlx5_0}; use {@link #NVSWITCH} for a GPU's link to the NVSwitch bar. */
    public static String linkKey(String hostname, String deviceA, String deviceB)
    {
        boolean ordered = deviceA.compareTo(deviceB) <= 0;
        return hostname + ":" + (ordered ? deviceA : deviceB) + "<->" + (ordered ? deviceB : deviceA);
    }

    /** The key of the network line between two nodes, either order: e.g. {@code dgx-a<->dgx-b}. */
    public static String networkKey(String hostA, String hostB)
    {
        boolean ordered = hostA.compareTo(hostB) <= 0;
        return (ordered ? hostA : hostB) + "<->" + (ordered ? hostB : hostA);
    }

    /** {@code text} safe inside XML character data and attribute values; characters XML 1.0 forbids become {@code ?}. */
    public static String escape(String text)
    {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&apos;");
                default -> {
                    boolean allowed = c == '\t' || c == '\n' || c == '\r' || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD);
                    if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                        out.append(c).append(text.charAt(++i));
                    }
                    else {
                        out.append(allowed ? c : '?');
                    }
                }
            }
        }
        return out.toString();
    }

    /** Bytes in binary units, e.g. {@code 1.5 GiB}. */
    static String formatBytes(long bytes)
    {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        double value = bytes;
        int unit = 0;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return unit == 0 ? bytes + " B" : String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }

    /** Closeness of a path, closest first, as Ferry's NIC choice orders it (NODE just after PHB); unknown last. */
    static int rank(RouteDecision decision)
    {
        if (decision.path().equals("?") || decision.pathClass().isEmpty()) {
            return Integer.MAX_VALUE;
        }
        PathClass pathClass = decision.pathClass().get();
        return pathClass.ncclEquivalent().ordinal() * 2 + (pathClass == PathClass.NODE ? 1 : 0);
    }

    private static final class Drawing
    {
        private final DecisionReport report;
        private final Map<String, Long> bytes;
        private final StringBuilder body = new StringBuilder();
        private final StringBuilder labels = new StringBuilder();
        private final Map<String, Integer> nodeTops = new HashMap<>();
        private final Map<String, Integer> nodeHeights = new HashMap<>();
        private int width;

        Drawing(DecisionReport report, Map<String, Long> bytes)
        {
            this.report = report;
            this.bytes = bytes;
        }

        String draw()
        {
            int nodeWidth = 360;
            for (NodeDecisions decisions : report.nodes()) {
                NodeTopology node = decisions.node();
                nodeWidth = Math.max(nodeWidth, Math.max(node.gpus().size(), node.nics().size() + node.nvmes().size()) * SLOT + 2 * MARGIN);
            }
            int y = MARGIN + 30;
            for (NodeDecisions decisions : report.nodes()) {
                int height = node(decisions, MARGIN, y, nodeWidth);
                nodeTops.put(decisions.node().hostname(), y);
                nodeHeights.put(decisions.node().hostname(), height);
                y += height + NODE_GAP;
            }
            int right = MARGIN + nodeWidth;
            int labelRight = network(right);
            y = legend(y, right);
            width = Math.max(right, labelRight) + MARGIN;
            int height = y + MARGIN;
            StringBuilder out = new StringBuilder();
            out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
            out.append("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"").append(width).append("\" height=\"").append(height)
                    .append("\" viewBox=\"0 0 ").append(width).append(' ').append(height).append("\" font-family=\"DejaVu Sans Mono, monospace\" font-size=\"10\">\n");
            out.append("<title>").append(escape("Ferry topology: " + report.cluster().name())).append("</title>\n");
            out.append("<rect x=\"0\" y=\"0\" width=\"").append(width).append("\" height=\"").append(height).append("\" fill=\"#ffffff\"/>\n");
            out.append(text(MARGIN, MARGIN + 12, "Ferry topology: " + report.cluster().name(), "font-size=\"14\" font-weight=\"bold\""));
            out.append(body).append(labels).append("</svg>\n");
            return out.toString();
        }

        /** Draws one node at (x, top); returns its height. */
        private int node(NodeDecisions decisions, int x, int top, int nodeWidth)
        {
            NodeTopology node = decisions.node();
            String host = node.hostname();
            List<Gpu> gpus = node.gpus();
            Map<String, Integer> gpuSlot = new HashMap<>();
            for (int i = 0; i < gpus.size(); i++) {
                gpuSlot.put(gpus.get(i).name(), i);
            }
            Set<String> switched = switchedGpus(node, decisions.gpuPairs());
            List<RouteDecision> pairs = closestPairs(decisions.gpuPairs(), switched);
            int maxDistance = pairs.stream().mapToInt(pair -> Math.abs(gpuSlot.get(pair.source()) - gpuSlot.get(pair.target()))).max().orElse(0);
            int cursor = top + 36;
            int barY = cursor;
            if (!switched.isEmpty()) {
                cursor += 22 + 56;
            }
            if (!pairs.isEmpty()) {
                cursor += 14 * maxDistance + 28;
            }
            int gpuTop = cursor;
            int gpuBottom = gpuTop + BOX_H;
            List<Device> devices = devices(decisions, gpuSlot);
            int deviceTop = gpuBottom + (devices.isEmpty() ? 0 : 130);
            int height = (devices.isEmpty() ? gpuBottom : deviceTop + BOX_H) + 22 - top;
            if (gpus.isEmpty()) {
                height = Math.max(height, 70);
            }

            body.append("<g id=\"").append(escape("node-" + host)).append("\">\n");
            body.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"8\" fill=\"#f5f7fa\" stroke=\"#34495e\" stroke-width=\"1.5\"/>\n",
                    x, top, nodeWidth, height));
            String peer = "peer memory " + node.kernelFacts().peerMemory().presence() + ", nvidia_fs " + node.kernelFacts().nvidiaFs().presence();
            body.append(text(x + 10, top + 18, host, "font-size=\"13\" font-weight=\"bold\""));
            body.append(text(x + 10 + (int) Math.ceil((host.length() + 2) * CHAR_W * 1.3), top + 18, peer, "fill=\"#555555\""));
            if (gpus.isEmpty()) {
                body.append(text(x + 10, top + 44, "no GPU seen", "fill=\"#a00000\""));
            }

            int rowLeft = x + MARGIN;
            // NVSwitch bar and each switched GPU's link to it
            if (!switched.isEmpty()) {
                int first = gpus.stream().filter(gpu -> switched.contains(gpu.name())).mapToInt(gpu -> gpuSlot.get(gpu.name())).min().orElse(0);
                int last = gpus.stream().filter(gpu -> switched.contains(gpu.name())).mapToInt(gpu -> gpuSlot.get(gpu.name())).max().orElse(0);
                int barX = rowLeft + first * SLOT;
                int barW = (last - first) * SLOT + BOX_W;
                for (Gpu gpu : gpus) {
                    if (!switched.contains(gpu.name())) {
                        continue;
                    }
                    int cx = rowLeft + gpuSlot.get(gpu.name()) * SLOT + BOX_W / 2;
                    String cell = nvlinkCell(decisions.gpuPairs(), gpu.name());
                    line(cx, barY + 22, cx, gpuTop, colour(Route.NVLINK), 3, false);
                    label(cx, (barY + 22 + gpuTop) / 2, withBytes(cell, linkKey(host, gpu.name(), NVSWITCH)), colour(Route.NVLINK));
                }
                body.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"22\" rx=\"4\" fill=\"#2e7d32\"/>\n", barX, barY, barW));
                body.append(text(barX + barW / 2, barY + 15, "NVSwitch: " + switched.size() + " GPUs, every pair NVLINK", "fill=\"#ffffff\" text-anchor=\"middle\" font-weight=\"bold\""));
            }
            // GPU pairs drawn as arcs above the GPU row
            for (RouteDecision pair : pairs) {
                int a = gpuSlot.get(pair.source());
                int b = gpuSlot.get(pair.target());
                int xa = rowLeft + a * SLOT + BOX_W / 2 + (a < b ? 10 : -10);
                int xb = rowLeft + b * SLOT + BOX_W / 2 + (a < b ? -10 : 10);
                int distance = Math.abs(a - b);
                int control = gpuTop - 28 * distance - 12;
                String colour = colour(pair.route());
                body.append(String.format(Locale.ROOT, "<path d=\"M %d %d Q %d %d %d %d\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s/>\n",
                        xa, gpuTop, (xa + xb) / 2, control, xb, gpuTop, colour, dash(pair.route())));
                label((xa + xb) / 2, (gpuTop + control) / 2, withBytes(pair.path() + " " + pair.route(), linkKey(host, pair.source(), pair.target())), colour);
            }
            // GPU to NIC and NVMe links, closest class per device; one label per device and route where the lines meet
            for (int i = 0; i < devices.size(); i++) {
                Device device = devices.get(i);
                int dx = rowLeft + i * SLOT + BOX_W / 2;
                Map<String, Long> labelBytes = new LinkedHashMap<>();
                Map<String, String> labelColours = new LinkedHashMap<>();
                for (RouteDecision link : device.links()) {
                    int gx = rowLeft + gpuSlot.get(link.source()) * SLOT + BOX_W / 2;
                    String colour = colour(link.route());
                    line(gx, gpuBottom, dx, deviceTop, colour, 1.6, dash(link.route()).length() > 0);
                    String label = link.path() + " " + link.route();
                    Long carried = sum(bytes.get(linkKey(host, link.source(), device.name())), bytes.get(linkKey(host, link.source(), device.name(), link.route())));
                    labelBytes.merge(label, carried == null ? -1L : carried, (a, b) -> a < 0 ? b : b < 0 ? a : a + b);
                    labelColours.put(label, colour);
                    // Bytes that took another route over this link (a GDS-capable drive read through BOUNCE): a line and label of their own
                    for (Route other : Route.values()) {
                        Long otherBytes = other == link.route() ? null : bytes.get(linkKey(host, link.source(), device.name(), other));
                        if (otherBytes == null) {
                            continue;
                        }
                        line(gx + 5, gpuBottom, dx + 5, deviceTop, colour(other), 1.6, RouteColours.dashed(other));
                        String otherLabel = link.path() + " " + other;
                        labelBytes.merge(otherLabel, otherBytes, (a, b) -> a < 0 ? b : a + b);
                        labelColours.put(otherLabel, colour(other));
                    }
                }
                int k = 0;
                for (Map.Entry<String, Long> entry : labelBytes.entrySet()) {
                    int y = deviceTop - 16 - 18 * (i % 2) - 36 * k++;
                    // Just above the device, where its lines converge; neighbours alternate in height
                    label(dx, y, entry.getValue() < 0 ? entry.getKey() : entry.getKey() + " " + formatBytes(entry.getValue()), labelColours.get(entry.getKey()));
                }
            }
            for (Gpu gpu : gpus) {
                int gx = rowLeft + gpuSlot.get(gpu.name()) * SLOT;
                box(gx, gpuTop, "#dff0d8", "#2e7d32", gpu.name(), gpu.model().map(model -> model.replaceFirst("^NVIDIA ", "")).orElse("GPU " + gpu.index()));
            }
            for (int i = 0; i < devices.size(); i++) {
                Device device = devices.get(i);
                box(rowLeft + i * SLOT, deviceTop, device.nic() ? "#d9edf7" : "#fcf8e3", device.nic() ? "#1f618d" : "#9a7d0a", device.name(), device.detail());
            }
            body.append("</g>\n");
            return height;
        }

        /** Lines between nodes, in lanes to the right of the node boxes; returns the right edge of their labels. */
        private int network(int right)
        {
            int labelRight = right;
            List<RouteDecision> network = report.network();
            for (int p = 0; p < network.size(); p++) {
                RouteDecision decision = network.get(p);
                String a = decision.source();
                String b = decision.target();
                int laneX = right + 24 + p * LANE;
                int offset = (p % 4) * 12 - 18;
                int ya = nodeTops.get(a) + nodeHeights.get(a) / 2 + offset;
                int yb = nodeTops.get(b) + nodeHeights.get(b) / 2 + offset;
                String colour = colour(decision.route());
                body.append(String.format(Locale.ROOT, "<polyline points=\"%d,%d %d,%d %d,%d %d,%d\" fill=\"none\" stroke=\"%s\" stroke-width=\"2.5\"%s/>\n",
                        right, ya, laneX, ya, laneX, yb, right, yb, colour, dash(decision.route())));
                List<String> lines = new ArrayList<>();
                lines.add(a + " <-> " + b);
                lines.add("host: " + decision.route() + " over " + linkLayerOf(report.cluster().node(a).orElseThrow(), report.cluster().node(b).orElseThrow(), decision.route()));
                Set<Route> gpuRoutes = new LinkedHashSet<>();
                for (RouteDecision gpu : report.gpuNetwork()) {
                    if ((gpu.source().endsWith("@" + a) && gpu.target().endsWith("@" + b)) || (gpu.source().endsWith("@" + b) && gpu.target().endsWith("@" + a))) {
                        gpuRoutes.add(gpu.route());
                    }
                }
                if (!gpuRoutes.isEmpty()) {
                    lines.add("GPU: " + String.join("/", gpuRoutes.stream().map(Route::name).toList()));
                }
                Long carried = bytes.get(networkKey(a, b));
                if (carried != null) {
                    lines.add(formatBytes(carried));
                }
                int textX = laneX + 6;
                int textY = (ya + yb) / 2 - 6 * lines.size() + 10 + p * 4;
                int longest = lines.stream().mapToInt(String::length).max().orElse(0);
                labels.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#ffffff\" fill-opacity=\"0.9\" stroke=\"%s\" stroke-width=\"0.5\"/>\n",
                        textX - 2, textY - 10, (int) Math.ceil(longest * CHAR_W) + 4, 12 * lines.size() + 2, colour));
                for (int i = 0; i < lines.size(); i++) {
                    labels.append(text(textX, textY + 12 * i, lines.get(i), "fill=\"" + colour + "\""));
                }
                labelRight = Math.max(labelRight, textX + (int) Math.ceil(longest * CHAR_W) + 4);
            }
            return labelRight;
        }

        /** The colour key and, with traffic, bytes per route; returns the y below it. */
        private int legend(int y, int right)
        {
            int x = MARGIN;
            // Every route a line can stand for (LOCAL is an executor's own store: never a line).
            List<Route> shown = Arrays.stream(Route.values()).filter(route -> route != Route.LOCAL).toList();
            int cx = x;
            int row = y;
            for (Route route : shown) {
                int w = (int) Math.ceil(route.name().length() * CHAR_W) + 40;
                if (cx + w > right && cx > x) {
                    cx = x;
                    row += 16;
                }
                body.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"%s/>\n",
                        cx, row - 3, cx + 24, row - 3, colour(route), dash(route)));
                body.append(text(cx + 28, row, route.name(), ""));
                cx += w;
            }
            row += 8;
            Map<String, Long> perRoute = new TreeMap<>();
            for (Route route : Route.values()) {
                Long carried = bytes.get(route.name());
                if (carried != null) {
                    perRoute.put(route.name(), carried);
                }
            }
            if (!perRoute.isEmpty()) {
                row += 16;
                body.append(text(x, row, "Bytes per route:", "font-weight=\"bold\""));
                for (Map.Entry<String, Long> entry : perRoute.entrySet()) {
                    row += 14;
                    body.append(text(x + 10, row, entry.getKey() + ": " + formatBytes(entry.getValue()), "fill=\"" + colour(Route.valueOf(entry.getKey())) + "\""));
                }
            }
            return row;
        }

        private String withBytes(String label, String key)
        {
            Long carried = bytes.get(key);
            return carried == null ? label : label + " " + formatBytes(carried);
        }

        private void box(int x, int y, String fill, String stroke, String title, String detail)
        {
            body.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"4\" fill=\"%s\" stroke=\"%s\" stroke-width=\"1.2\"/>\n",
                    x, y, BOX_W, BOX_H, fill, stroke));
            body.append(text(x + BOX_W / 2, y + 16, fit(title), "text-anchor=\"middle\" font-weight=\"bold\""));
            body.append(text(x + BOX_W / 2, y + 31, fit(detail), "text-anchor=\"middle\" font-size=\"9\" fill=\"#444444\""));
        }

        private void line(int x1, int y1, int x2, int y2, String colour, double strokeWidth, boolean dashed)
        {
            body.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"%s\"%s/>\n",
                    x1, y1, x2, y2, colour, strokeWidth, dashed ? " stroke-dasharray=\"6,4\"" : ""));
        }

        /** A label centred on (x, y) on a white background, drawn above every line. */
        private void label(int x, int y, String label, String colour)
        {
            int w = (int) Math.ceil(label.length() * CHAR_W) + 6;
            labels.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"13\" rx=\"2\" fill=\"#ffffff\" fill-opacity=\"0.9\" stroke=\"%s\" stroke-width=\"0.5\"/>\n",
                    x - w / 2, y - 7, w, colour));
            labels.append(text(x, y + 3, label, "text-anchor=\"middle\" fill=\"" + colour + "\""));
        }

        private static String text(int x, int y, String content, String attributes)
        {
            return "<text x=\"" + x + "\" y=\"" + y + "\"" + (attributes.isEmpty() ? "" : " " + attributes) + ">" + escape(content) + "</text>\n";
        }
    }

    /** A NIC or NVMe drive with the links drawn to it (its closest GPUs). */
    private record Device(String name, String detail, boolean nic, List<RouteDecision> links, int firstGpu) {}

    private static List<Device> devices(NodeDecisions decisions, Map<String, Integer> gpuSlot)
    {
        NodeTopology node = decisions.node();
        List<Device> devices = new ArrayList<>();
        for (Nic nic : node.nics()) {
            List<RouteDecision> links = closest(decisions.gpuNics(), nic.name());
            String rate = nic.activeRateGbps() > 0 ? " " + trim(nic.activeRateGbps()) + "G" : "";
            String layer = nic.linkLayer() == LinkLayer.UNKNOWN ? "RDMA NIC" : nic.linkLayer().displayName();
            devices.add(new Device(nic.name(), layer + rate, true, links, first(links, gpuSlot)));
        }
        for (NvmeDrive nvme : node.nvmes()) {
            List<RouteDecision> links = closest(decisions.gpuNvmes(), nvme.controller());
            devices.add(new Device(nvme.controller(), "NVMe " + nvme.transport(), false, links, first(links, gpuSlot)));
        }
        // Under the GPUs they are closest to, so most links run straight down; stable by kind then name
        List<Device> sorted = new ArrayList<>(devices);
        sorted.sort((a, b) -> a.firstGpu() != b.firstGpu() ? Integer.compare(a.firstGpu(), b.firstGpu())
                : a.nic() != b.nic() ? (a.nic() ? -1 : 1) : a.name().compareTo(b.name()));
        return sorted;
    }

    private static int first(List<RouteDecision> links, Map<String, Integer> gpuSlot)
    {
        return links.stream().mapToInt(link -> gpuSlot.getOrDefault(link.source(), Integer.MAX_VALUE)).min().orElse(Integer.MAX_VALUE);
    }

    /** The decisions for {@code device} of its closest path class. */
    private static List<RouteDecision> closest(List<RouteDecision> decisions, String device)
    {
        List<RouteDecision> mine = decisions.stream().filter(decision -> decision.target().equals(device)).toList();
        int best = mine.stream().mapToInt(SvgRenderer::rank).min().orElse(Integer.MAX_VALUE);
        return mine.stream().filter(decision -> rank(decision) == best).toList();
    }

    /**
     * GPUs NVLinked through NVSwitches: with NVSwitches seen, every GPU with an NVLink; without (captures and VMs
     * hide them), all of three or more GPUs when every pair is NVLinked with the same link count, as only a switch does.
     */
    static Set<String> switchedGpus(NodeTopology node, List<RouteDecision> pairs)
    {
        Set<String> switched = new LinkedHashSet<>();
        List<RouteDecision> nvlinks = pairs.stream().filter(pair -> pair.pathClass().orElse(null) == PathClass.NVLINK).toList();
        if (!node.nvSwitches().isEmpty()) {
            for (Gpu gpu : node.gpus()) {
                if (nvlinks.stream().anyMatch(pair -> pair.source().equals(gpu.name()) || pair.target().equals(gpu.name()))) {
                    switched.add(gpu.name());
                }
            }
            return switched;
        }
        boolean uniform = node.gpus().size() >= 3 && nvlinks.size() == pairs.size() && pairs.stream().map(RouteDecision::path).distinct().count() == 1;
        if (uniform) {
            node.gpus().forEach(gpu -> switched.add(gpu.name()));
        }
        return switched;
    }

    /** GPU pairs not drawn through the switch: each GPU's pairs of its closest class. */
    private static List<RouteDecision> closestPairs(List<RouteDecision> pairs, Set<String> switched)
    {
        List<RouteDecision> candidates = pairs.stream()
                .filter(pair -> !(switched.contains(pair.source()) && switched.contains(pair.target())))
                .toList();
        Map<String, Integer> best = new LinkedHashMap<>();
        for (RouteDecision pair : candidates) {
            best.merge(pair.source(), rank(pair), Math::min);
            best.merge(pair.target(), rank(pair), Math::min);
        }
        return candidates.stream()
                .filter(pair -> rank(pair) == best.get(pair.source()) || rank(pair) == best.get(pair.target()))
                .toList();
    }

    /** The NVLink cell of a switched GPU's links, e.g. {@code NV18} (the widest of its pairs). */
    private static String nvlinkCell(List<RouteDecision> pairs, String gpu)
    {
        return pairs.stream()
                .filter(pair -> pair.source().equals(gpu) || pair.target().equals(gpu))
                .filter(pair -> pair.pathClass().orElse(null) == PathClass.NVLINK)
                .map(RouteDecision::path)
                .max((a, b) -> Integer.compare(PathClass.nvlinkCount(a), PathClass.nvlinkCount(b)))
                .orElse("NVLINK");
    }

    /** The link layer a network decision runs over: the common active RDMA layers for RDMA, else IPoIB or IP. */
    private static String linkLayerOf(NodeTopology a, NodeTopology b, Route route)
    {
        if (route == Route.RDMA) {
            List<String> common = new ArrayList<>();
            for (LinkLayer layer : LinkLayer.values()) {
                boolean onA = a.nics().stream().anyMatch(nic -> nic.isActive() && nic.linkLayer() == layer);
                boolean onB = b.nics().stream().anyMatch(nic -> nic.isActive() && nic.linkLayer() == layer);
                if (onA && onB) {
                    common.add(layer.displayName());
                }
            }
            return common.isEmpty() ? LinkLayer.UNKNOWN.displayName() : String.join("/", common);
        }
        if (route == Route.IPOIB_TCP) {
            return "IPoIB";
        }
        if (route == Route.HOST_SHM) {
            return "shared memory";
        }
        return "IP";
    }

    private static Long sum(Long a, Long b)
    {
        return a == null ? b : b == null ? a : Long.valueOf(a + b);
    }

    private static String trim(double value)
    {
        return value == Math.rint(value) ? Long.toString((long) value) : String.format(Locale.ROOT, "%.1f", value);
    }

    private static String fit(String text)
    {
        int max = (int) Math.floor((BOX_W - 6) / CHAR_W);
        return text.length() <= max ? text : text.substring(0, max - 1) + "~";
    }

    private static String colour(Route route)
    {
        return RouteColours.colour(route);
    }

    private static String dash(Route route)
    {
        return RouteColours.dashed(route) ? " stroke-dasharray=\"6,4\"" : "";
    }
}
