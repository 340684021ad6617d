package dev.ferry.examples.demo;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import dev.ferry.topology.report.DecisionReport;
import dev.ferry.topology.report.NodeDecisions;
import dev.ferry.topology.route.RouteDecision;

/**
 * The route decisions of a topology in a few lines: per node how many GPU pairs, GPU-NIC and
 * GPU-NVMe pairs got each route, and between nodes the route with its reason. {@code bin/ferry
 * topology --topology FILE} prints every decision in full.
 */
final class TopologySummary
{
    private TopologySummary() {}

    static String render(DecisionReport report)
    {
        StringBuilder out = new StringBuilder();
        out.append("  cluster ").append(report.cluster().name()).append(": ").append(report.nodes().size()).append(" node(s)\n");
        for (NodeDecisions node : report.nodes()) {
            out.append("  ").append(node.node().hostname()).append(": ")
                    .append(node.node().gpus().size()).append(" GPU(s), ")
                    .append(node.node().nics().size()).append(" RDMA NIC(s), ")
                    .append(node.node().nvmes().size()).append(" NVMe\n");
            line(out, "GPU<->GPU ", node.gpuPairs());
            line(out, "GPU<->NIC ", node.gpuNics());
            line(out, "GPU<-NVMe ", node.gpuNvmes());
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
