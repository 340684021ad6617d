package dev.ferry.topology.report;

import dev.ferry.topology.model.KernelFacts;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.model.ProbeReport;
import dev.ferry.topology.route.Bandwidth;
import dev.ferry.topology.route.RouteDecision;

import java.util.List;

/** The human-readable report: per node the matrix, devices, kernel facts, probes and decisions; then the network. */
public final class TextReport
{
    private TextReport() {}

    public static String render(DecisionReport report)
    {
        StringBuilder out = new StringBuilder();
        for (NodeDecisions decisions : report.nodes()) {
            NodeTopology node = decisions.node();
            out.append("== Node ").append(node.hostname()).append(" ==\n\n");
            out.append(MatrixPrinter.print(node)).append('\n');
            out.append("Devices:\n").append(MatrixPrinter.devices(node));
            kernel(out, node.kernelFacts());
            probes(out, node.reports());
            if (node.gpus().isEmpty()) {
                out.append("\nNo GPU seen on ").append(node.hostname()).append(node.reports().stream().anyMatch(probe -> !probe.ran()) ? "; what could not be seen:\n" : ".\n")
                        .append(reasons(node.reports()));
            }
            section(out, "GPU <-> GPU", decisions.gpuPairs());
            section(out, "GPU <-> NIC", decisions.gpuNics());
            section(out, "GPU <- NVMe (GPUDirect Storage)", decisions.gpuNvmes());
            decisions.fileReads().ifPresent(reads -> {
                out.append("\nFile ").append(reads.placement().path()).append(":\n  ").append(reads.placement().describe()).append('\n');
                section(out, node.gpus().isEmpty() ? "Host <- file" : "GPU <- file", reads.decisions());
            });
            out.append('\n');
        }
        if (!report.network().isEmpty()) {
            out.append("== Between nodes ==\n");
            section(out, "Host memory", report.network());
            section(out, "GPU-resident blocks", report.gpuNetwork());
        }
        return out.toString();
    }

    private static void kernel(StringBuilder out, KernelFacts facts)
    {
        out.append("Kernel:\n");
        out.append("  peer memory (GPUDirect RDMA): ").append(facts.peerMemory().presence())
                .append(facts.peerMemory().mechanism().map(mechanism -> " via " + mechanism).orElse(""))
                .append(" (").append(facts.peerMemory().evidence()).append(")\n");
        out.append("  nvidia_fs (GPUDirect Storage): ").append(facts.nvidiaFs().presence()).append(" (").append(facts.nvidiaFs().evidence()).append(")\n");
        out.append("  IOMMU: ").append(facts.iommu().presence()).append(" (").append(facts.iommu().evidence()).append(")\n");
    }

    private static void probes(StringBuilder out, List<ProbeReport> reports)
    {
        if (reports.isEmpty()) {
            return;
        }
        out.append("Probes:\n");
        for (ProbeReport report : reports) {
            out.append("  ").append(report.probe()).append(": ").append(report.ran() ? "ran" : "could not run").append(" - ").append(report.detail()).append('\n');
        }
    }

    private static String reasons(List<ProbeReport> reports)
    {
        StringBuilder out = new StringBuilder();
        for (ProbeReport report : reports) {
            if (!report.ran()) {
                out.append("  - ").append(report.probe()).append(": ").append(report.detail()).append('\n');
            }
        }
        return out.toString();
    }

    private static void section(StringBuilder out, String title, List<RouteDecision> decisions)
    {
        if (decisions.isEmpty()) {
            return;
        }
        out.append('\n').append(title).append(":\n");
        for (RouteDecision decision : decisions) {
            out.append("  ").append(decision.source()).append(" -> ").append(decision.target()).append("  ")
                    .append(decision.path()).append("  ").append(decision.route()).append("  ")
                    .append(Bandwidth.format(decision.bandwidthGBps())).append(" GB/s\n");
            out.append("      reason: ").append(decision.reason()).append('\n');
            decision.pathDetail().ifPresent(detail -> out.append("      path: ").append(detail).append('\n'));
            out.append("      bandwidth: ").append(decision.bandwidthSource()).append('\n');
            out.append("      rule: ").append(decision.rule()).append("; threshold: ").append(decision.threshold()).append('\n');
            decision.runnerUp().ifPresent(runnerUp -> out.append("      runner-up: ").append(runnerUp.route()).append(" - ").append(runnerUp.whyNot()).append('\n'));
            decision.vetoes().forEach(veto -> out.append("      veto: ").append(veto).append('\n'));
            decision.notes().forEach(note -> out.append("      note: ").append(note).append('\n'));
        }
    }
}
