package dev.ferry.topology.probe;

import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.model.ProbeReport;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Probes the machine the build runs on; on a GPU-less CI box it must explain, not throw. */
class TestMachineProberLocal
{
    @Test
    void probingThisMachineNeverThrowsAndReportsEveryProbe()
    {
        NodeTopology node = MachineProber.probe(ProbeOptions.localMachine());
        for (String probe : new String[] {"sysfs", "nvml", "gpus", "rdma", "net", "nvme", "pcie", "peermem", "nvidia_fs", "iommu", "numa"}) {
            assertTrue(report(node, probe).isPresent(), "no report from " + probe + ": " + node.reports());
        }
        node.reports().forEach(report -> assertFalse(report.detail().isBlank(), report.toString()));
        System.out.println(node);
        node.reports().forEach(report -> System.out.println("  " + report));
    }

    @Test
    void withoutAnNvidiaGpuTheReportsSayWhy()
    {
        // Only meaningful on machines without NVIDIA hardware, like the project's CI
        assumeTrue(Files.isDirectory(Path.of("/sys/bus/pci/devices")));
        assumeFalse(Files.exists(Path.of("/sys/module/nvidia")), "this machine has the NVIDIA driver");
        NodeTopology node = MachineProber.probe(ProbeOptions.localMachine());
        assertTrue(node.gpus().isEmpty(), node.gpus().toString());
        ProbeReport gpus = report(node, "gpus").orElseThrow();
        assertFalse(gpus.ran());
        assertTrue(gpus.detail().startsWith("no NVIDIA GPU in /sys/bus/pci/devices"), gpus.detail());
        ProbeReport nvml = report(node, "nvml").orElseThrow();
        assertFalse(nvml.ran());
        assertTrue(nvml.detail().startsWith("NVML unavailable: "), nvml.detail());
        assertTrue(node.p2pStatuses().isEmpty());
        assertEquals(0, node.relations().stream().filter(relation -> relation.a().startsWith("GPU")).count());
    }

    private static Optional<ProbeReport> report(NodeTopology node, String probe)
    {
        return node.reports().stream().filter(report -> report.probe().equals(probe)).findFirst();
    }
}
