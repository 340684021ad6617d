package dev.ferry.topology.report;

import dev.ferry.topology.model.Gpu;
import dev.ferry.topology.model.Nic;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.model.NvmeDrive;
import dev.ferry.topology.model.Relation;
import dev.ferry.topology.route.Bandwidth;

import java.util.ArrayList;
import java.util.List;

/**
 * Prints a node like {@code nvidia-smi topo -m}, with NVMe columns added: GPUs, then RDMA NICs, then
 * NVMe controllers; {@code ?} where the relation is unknown. GPU rows end with CPU and NUMA affinity.
 */
public final class MatrixPrinter
{
    private MatrixPrinter() {}

    public static String print(NodeTopology node)
    {
        List<String> devices = new ArrayList<>();
        node.gpus().forEach(gpu -> devices.add(gpu.name()));
        node.nics().forEach(nic -> devices.add(nic.name()));
        node.nvmes().forEach(nvme -> devices.add(nvme.controller()));
        if (devices.isEmpty()) {
            return "(no GPUs, RDMA NICs or NVMe drives known)\n";
        }
        int width = 8;
        for (String device : devices) {
            width = Math.max(width, device.length() + 2);
        }
        StringBuilder out = new StringBuilder();
        out.append(pad("", width));
        for (String device : devices) {
            out.append(pad(device, width));
        }
        out.append(pad("CPU Affinity", 16)).append("NUMA Affinity\n");
        for (String row : devices) {
            out.append(pad(row, width));
            for (String column : devices) {
                out.append(pad(cell(node, row, column), width));
            }
            node.gpu(row).ifPresent(gpu -> out.append(pad(gpu.cpuAffinity().isEmpty() ? "N/A" : gpu.cpuAffinity(), 16))
                    .append(gpu.numaNode().isPresent() ? String.valueOf(gpu.numaNode().getAsInt()) : "N/A"));
            trimEnd(out);
            out.append('\n');
        }
        return out.toString();
    }

    /** One line per device with what the matrix cannot show. */
    public static String devices(NodeTopology node)
    {
        StringBuilder out = new StringBuilder();
        for (Gpu gpu : node.gpus()) {
            out.append("  ").append(gpu.name()).append(": ").append(gpu.model().orElse("model unknown"))
                    .append(", compute capability ").append(gpu.computeCapability().orElse("unknown"))
                    .append(gpu.pci().map(pci -> ", PCI " + pci).orElse(""))
                    .append(gpu.numaNode().isPresent() ? ", NUMA " + gpu.numaNode().getAsInt() : "")
                    .append('\n');
        }
        for (Nic nic : node.nics()) {
            out.append("  ").append(nic.name()).append(": ").append(nic.linkLayer().displayName());
            if (nic.ports().isEmpty()) {
                out.append(", ports unknown");
            }
            else {
                out.append(", ").append(nic.isActive() ? "active" : "no active port");
                if (nic.activeRateGbps() > 0) {
                    out.append(" ").append(Bandwidth.format(nic.activeRateGbps())).append(" Gb/s");
                }
            }
            nic.pci().ifPresent(pci -> out.append(", PCI ").append(pci));
            if (!nic.netdevs().isEmpty()) {
                out.append(", netdevs ").append(String.join(",", nic.netdevs()));
            }
            out.append('\n');
        }
        node.netInterfaces().forEach(netInterface -> out.append("  ").append(netInterface.name()).append(": ")
                .append(netInterface.kind()).append(netInterface.up() ? ", up" : ", down")
                .append(netInterface.speedMbps() > 0 ? ", " + netInterface.speedMbps() + " Mb/s" : ", speed unknown").append('\n'));
        for (NvmeDrive nvme : node.nvmes()) {
            out.append("  ").append(nvme.controller()).append(": NVMe over ").append(nvme.transport())
                    .append(nvme.namespaces().isEmpty() ? "" : ", namespaces " + String.join(",", nvme.namespaces()))
                    .append(nvme.pci().map(pci -> ", PCI " + pci).orElse(""))
                    .append('\n');
        }
        return out.toString();
    }

    private static String cell(NodeTopology node, String row, String column)
    {
        return node.relation(row, column).map(Relation::cell).orElse("?");
    }

    private static String pad(String text, int width)
    {
        StringBuilder out = new StringBuilder(text);
        do {
            out.append(' ');
        }
        while (out.length() < width);
        return out.toString();
    }

    private static void trimEnd(StringBuilder out)
    {
        while (out.length() > 0 && out.charAt(out.length() - 1) == ' ') {
            out.setLength(out.length() - 1);
        }
    }
}
