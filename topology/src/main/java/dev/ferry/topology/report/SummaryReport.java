package dev.ferry.topology.report;

import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.model.ProbeReport;
import dev.ferry.topology.route.RouteDecision;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * The route decisions of a topology in a few lines: per node how many GPU pairs, GPU-NIC and GPU-NVMe pairs got
 * each route, what could not be seen on a node without a GPU, how a file asked about would be read, and between
 * nodes each route with its reason. {@code bin/ferry topology} prints it by default and {@code bin/ferry demo}
 * before its queries; {@link TextReport} ({@code --verbose}) has every decision in full.
 */
public final class SummaryReport
{
    private SummaryReport() {}

    public static String render(DecisionReport report)
    {
        requireNonNull(report, "report is null");
        StringBuilder out = new StringBuilder();
        out.append("  cluster ").append(report.cluster().name()).append(": ").append(report.nodes().size()).append(" node(s)\n");
        for (NodeDecisions decisions : report.nodes()) {
            NodeTopology node = decisions.node();
            out.append("  ").append(node.hostname()).append(": ")
                    .append(node.gpus().size()).append(" GPU(s), ")
                    .append(node.nics().size()).append(" RDMA NIC(s), ")
                    .append(node.nvmes().size()).append(" NVMe\n");
            if (node.gpus().isEmpty()) {
                for (ProbeReport probe : node.reports()) {
                    if (!probe.ran()) {
                        out.append("    not seen: ").append(probe.probe()).append(": ").append(probe.detail()).append('\n');
                    }
                }
            }
            line(out, "GPU<->GPU ", decisions.gpuPairs());
            line(out, "GPU<->NIC ", decisions.gpuNics());
            line(out, "GPU<-NVMe ", decisions.gpuNvmes());
            decisions.fileReads().ifPresent(reads -> line(out, reads.placement().path() + " ", reads.decisions()));
        }
        for (RouteDecision decision : report.network()) {
            out.append("  ").append(decision.source()).append(" <-> ").append(decision.target()).append(": ").append(decision.route())
                    .append(" - ").append(decision.reason()).append('\n');
        }
        line(out, "GPU<->GPU across nodes ", report.gpuNetwork());
        return out.toString();
    }

    private static void line(StringBuilder out, String title, List<RouteDecision> decisions)
    {
        if (decisions.isEmpty()) {
            return;
        }
        Map<String, Long> counts = decisions.stream()
                .collect(Collectors.groupingBy(decision -> decision.route().name(), TreeMap::new, Collectors.counting()));
        out.append("    ").append(title).append(counts.entrySet().stream()
                .map(entry -> entry.getKey() + " x" + entry.getValue())
                .collect(Collectors.joining(", "))).append('\n');
    }
}
