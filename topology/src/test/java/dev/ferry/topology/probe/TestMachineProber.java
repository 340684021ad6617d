package dev.ferry.topology.probe;

import dev.ferry.topology.file.TopologyFileReader;
import dev.ferry.topology.file.TopologyFileWriter;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.model.Gpu;
import dev.ferry.topology.model.LinkLayer;
import dev.ferry.topology.model.NetInterface;
import dev.ferry.topology.model.Nic;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.model.NvSwitch;
import dev.ferry.topology.model.P2pStatus;
import dev.ferry.topology.model.PathClass;
import dev.ferry.topology.model.PciAddress;
import dev.ferry.topology.model.PcieLink;
import dev.ferry.topology.model.Presence;
import dev.ferry.topology.model.ProbeReport;
import dev.ferry.topology.model.Relation;
import dev.ferry.topology.probe.nvml.NvmlProbe;
import dev.ferry.topology.probe.nvml.NvmlProbeResult;
import dev.ferry.topology.probe.nvml.TestingNvmlLibrary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

import static dev.ferry.topology.probe.SysfsTreeBuilder.CLASS_3D_CONTROLLER;
import static dev.ferry.topology.probe.SysfsTreeBuilder.CLASS_ETHERNET;
import static dev.ferry.topology.probe.SysfsTreeBuilder.CLASS_INFINIBAND;
import static dev.ferry.topology.probe.SysfsTreeBuilder.CLASS_NVME;
import static dev.ferry.topology.probe.SysfsTreeBuilder.CLASS_NVSWITCH;
import static dev.ferry.topology.probe.SysfsTreeBuilder.CLASS_VGA;
import static dev.ferry.topology.probe.SysfsTreeBuilder.VENDOR_BROADCOM;
import static dev.ferry.topology.probe.SysfsTreeBuilder.VENDOR_INTEL;
import static dev.ferry.topology.probe.SysfsTreeBuilder.VENDOR_MELLANOX;
import static dev.ferry.topology.probe.SysfsTreeBuilder.VENDOR_NVIDIA;
import static dev.ferry.topology.probe.SysfsTreeBuilder.VENDOR_SAMSUNG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestMachineProber
{
    @TempDir
    Path temp;

    @Test
    void hgxBoxCombinesNvmlLinksWithTheSysfsTree()
    {
        SysfsTreeBuilder tree = hgxTree(temp.resolve("sys"));
        tree.module("nvidia_peermem", "550.54.15").module("nvidia_fs", "2.20.5").module("nvidia", "550.54.15");
        ProbeOptions options = new ProbeOptions(tree.root(), proc("dgx-h100-01"), false);
        NodeTopology node = MachineProber.probe(options, NvmlProbe.probe(TestingNvmlLibrary.hgxH100()));

        assertEquals("dgx-h100-01", node.hostname());
        assertEquals(8, node.gpus().size());
        Gpu gpu0 = node.gpu("GPU0").orElseThrow();
        assertEquals(Optional.of("NVIDIA H100 80GB HBM3"), gpu0.model());
        assertEquals(Optional.of(PciAddress.parse("0000:18:00.0")), gpu0.pci());
        assertEquals(Optional.of("9.0"), gpu0.computeCapability());
        assertTrue(gpu0.uuid().orElseThrow().startsWith("GPU-"));
        assertEquals("0-47", gpu0.cpuAffinity());
        assertEquals(OptionalInt.of(1), node.gpu("GPU7").orElseThrow().numaNode());
        assertEquals(List.of("NVSwitch0", "NVSwitch1", "NVSwitch2", "NVSwitch3"), node.nvSwitches().stream().map(NvSwitch::name).toList());

        Relation gpus = node.relation("GPU0", "GPU7").orElseThrow();
        assertEquals("NV18", gpus.cell());
        assertEquals("nvml", gpus.source());
        assertEquals(Optional.of("4.0"), gpus.nvlinkVersion());
        assertEquals(Optional.of("NVLinks 18 through NVSwitches (GPU0 has 18 switch links, GPU7 18)"), gpus.detail());
        assertEquals(28, node.relations().stream().filter(relation -> relation.pathClass() == PathClass.NVLINK).count());
        assertEquals(28, node.p2pStatuses().size());
        assertTrue(node.p2pStatuses().stream().allMatch(P2pStatus::bothOk));

        Relation gpuNic = node.relation("GPU0", "mlx5_0").orElseThrow();
        assertEquals(PathClass.PIX, gpuNic.pathClass());
        assertEquals("sysfs", gpuNic.source());
        assertEquals(Optional.of(new PcieLink(5, 16)), gpuNic.bottleneck());
        assertEquals(Optional.of("both directly below 0000:16:00.0: a single PCIe switch; "
                + "0000:18:00.0 - 0000:17:00.0 - 0000:16:00.0 - 0000:17:01.0 - 0000:19:00.0"), gpuNic.detail());
        assertEquals(Optional.empty(), gpuNic.nvlinkVersion());
        assertTrue(node.relation("GPU4", "nvme0").orElseThrow().detail().orElseThrow()
                .startsWith("host bridges on different NUMA nodes (1 and 0); 0000:9a:00.0 - "), node.relation("GPU4", "nvme0").toString());
        assertEquals(PathClass.PIX, node.relation("GPU0", "nvme0").orElseThrow().pathClass());
        assertEquals(Optional.of(new PcieLink(4, 4)), node.relation("GPU0", "nvme0").orElseThrow().bottleneck());
        assertEquals(PathClass.NODE, node.relation("GPU1", "mlx5_0").orElseThrow().pathClass());
        assertEquals(PathClass.SYS, node.relation("GPU4", "mlx5_0").orElseThrow().pathClass());
        assertEquals(PathClass.SYS, node.relation("GPU4", "nvme0").orElseThrow().pathClass());
        // 8 GPUs, 1 NIC, 1 NVMe: every pair
        assertEquals(45, node.relations().size());

        Nic nic = node.nic("mlx5_0").orElseThrow();
        assertEquals(LinkLayer.INFINIBAND, nic.linkLayer());
        assertTrue(nic.isActive());
        assertEquals(400.0, nic.activeRateGbps());
        assertEquals(OptionalInt.of(0), nic.numaNode());
        assertEquals(List.of("ibp25s0"), nic.netdevs());
        assertEquals(NetInterface.Kind.IPOIB, node.netInterfaces().get(0).kind());

        assertEquals(Presence.PRESENT, node.kernelFacts().peerMemory().presence());
        assertEquals(Presence.PRESENT, node.kernelFacts().nvidiaFs().presence());
        assertTrue(report(node, "nvml").ran());
        assertTrue(report(node, "gpus").detail().startsWith("8 GPUs from NVML"), report(node, "gpus").detail());
        assertTrue(report(node, "nvswitch").detail().startsWith("4 NVSwitches"), report(node, "nvswitch").detail());
        assertTrue(report(node, "peermem").ran());
        assertEquals("GenuineIntel", node.cpu().orElseThrow().vendor());
        assertEquals(OptionalInt.of(143), node.cpu().orElseThrow().model());

        // What was probed, relation details and NVLink versions included, survives a topology file
        String saved = TopologyFileWriter.toText(ClusterTopology.single(node));
        assertEquals(node, TopologyFileReader.parse("probed.json", temp, saved, "probed").nodes().get(0));
    }

    @Test
    void workstationWithoutP2pKeepsNvmlsVetoAndTheSysfsPathClass()
    {
        SysfsTreeBuilder tree = new SysfsTreeBuilder(temp.resolve("sys"));
        tree.numaNode(0, "0-15");
        tree.bridge("pci0000:00/0000:00:01.0", VENDOR_INTEL).numa(0);
        tree.bridge("pci0000:00/0000:00:03.0", VENDOR_INTEL).numa(0);
        tree.pci("pci0000:00/0000:00:01.0/0000:01:00.0", CLASS_VGA, VENDOR_NVIDIA, 0x2230).link("16.0 GT/s PCIe", 16).numa(0);
        tree.pci("pci0000:00/0000:00:03.0/0000:21:00.0", CLASS_VGA, VENDOR_NVIDIA, 0x2230).link("16.0 GT/s PCIe", 16, "16.0 GT/s PCIe", 8).numa(0);
        NodeTopology node = MachineProber.probe(new ProbeOptions(tree.root(), proc("workstation"), false), NvmlProbe.probe(TestingNvmlLibrary.workstationWithoutP2p()));

        Relation pair = node.relation("GPU0", "GPU1").orElseThrow();
        assertEquals(PathClass.PHB, pair.pathClass());
        assertEquals(Optional.of(new PcieLink(4, 8)), pair.bottleneck(), "GPU1 trained at x8");
        P2pStatus status = node.p2pStatus("GPU1", "GPU0").orElseThrow();
        assertFalse(status.bothOk());
        assertEquals("NVML_P2P_STATUS_GPU_NOT_SUPPORTED", status.read().detail());
        // The NUMA node comes from sysfs; NVML gave no CPU affinity, so the node's CPUs stand in
        assertEquals(OptionalInt.of(0), node.gpu("GPU0").orElseThrow().numaNode());
        assertEquals("0-15", node.gpu("GPU0").orElseThrow().cpuAffinity());
        assertTrue(report(node, "pcie").detail().contains("down-trained: GPU1 0000:21:00.0 Gen4 x8 (down-trained from x16)"), report(node, "pcie").detail());
        assertFalse(report(node, "rdma").ran());
        assertTrue(report(node, "rdma").detail().endsWith("class/infiniband: no RDMA NIC (or ib_core not loaded)"), report(node, "rdma").detail());
        assertEquals(Presence.ABSENT, node.kernelFacts().peerMemory().presence());
        assertTrue(report(node, "peermem").detail().startsWith("nvidia_peermem not loaded"), report(node, "peermem").detail());
    }

    @Test
    void withoutNvmlGpusComeFromSysfsAndEveryDevicePairIsRelated()
    {
        SysfsTreeBuilder tree = new SysfsTreeBuilder(temp.resolve("sys"));
        tree.numaNode(0, "0-31").numaNode(1, "32-63");
        // A BMC's VGA function is a display device but no NVIDIA GPU
        tree.pci("pci0000:00/0000:00:1c.0/0000:03:00.0", CLASS_VGA, 0x1a03, 0x2000);
        tree.bridge("pci0000:40/0000:40:01.0", VENDOR_INTEL).numa(0);
        String port = tree.switchBelow("pci0000:40/0000:40:01.0", "0000:41:00.0", "0000:42:00.0");
        tree.bridge("pci0000:40/0000:40:01.0/0000:41:00.0/0000:42:01.0", VENDOR_BROADCOM);
        tree.pci(port + "/0000:43:00.0", CLASS_3D_CONTROLLER, VENDOR_NVIDIA, 0x26b9).link("16.0 GT/s PCIe", 16).numa(0);
        tree.pci("pci0000:40/0000:40:01.0/0000:41:00.0/0000:42:01.0/0000:44:00.0", CLASS_ETHERNET, VENDOR_MELLANOX, 0x101d).link("16.0 GT/s PCIe", 16).numa(0);
        tree.bridge("pci0000:80/0000:80:01.0", VENDOR_INTEL).numa(1);
        tree.pci("pci0000:80/0000:80:01.0/0000:81:00.0", CLASS_3D_CONTROLLER, VENDOR_NVIDIA, 0x26b9).link("16.0 GT/s PCIe", 16).numa(1);
        tree.pci("pci0000:80/0000:80:02.0/0000:82:00.0", CLASS_NVME, VENDOR_SAMSUNG, 0xa80a).link("16.0 GT/s PCIe", 4).numa(1);
        tree.infiniband("mlx5_0", "0000:44:00.0", "1: CA").port(1, "Ethernet", "4: ACTIVE", "5: LinkUp", "200 Gb/sec (4X HDR)");
        tree.netdev("ens44f0np0", "0000:44:00.0", 1, "up", "200000");
        tree.nvmeController("nvme0", "0000:82:00.0", "pcie");
        tree.nvmeNamespace("nvme0", "nvme0n1", "259:0");
        tree.iommuGroup(3, "DMA", "0000:43:00.0");
        NodeTopology node = MachineProber.probe(ProbeOptions.sysfsTree(tree.root()));

        assertEquals(List.of(Optional.of(PciAddress.parse("0000:43:00.0")), Optional.of(PciAddress.parse("0000:81:00.0"))),
                node.gpus().stream().map(Gpu::pci).toList(), "GPUs in address order, the ASPEED VGA left out");
        assertEquals(Optional.empty(), node.gpu("GPU0").orElseThrow().uuid());
        assertEquals("32-63", node.gpu("GPU1").orElseThrow().cpuAffinity());
        assertEquals(LinkLayer.ROCE, node.nic("mlx5_0").orElseThrow().linkLayer());
        assertEquals(List.of("nvme0n1"), node.nvme("nvme0").orElseThrow().namespaces());
        assertEquals(PathClass.PIX, node.relation("GPU0", "mlx5_0").orElseThrow().pathClass());
        assertEquals(PathClass.SYS, node.relation("GPU0", "GPU1").orElseThrow().pathClass());
        assertEquals(PathClass.PHB, node.relation("GPU1", "nvme0").orElseThrow().pathClass());
        assertEquals(PathClass.SYS, node.relation("mlx5_0", "nvme0").orElseThrow().pathClass());
        assertEquals(6, node.relations().size());
        assertTrue(node.p2pStatuses().isEmpty(), "P2P status needs NVML");
        assertEquals(Presence.PRESENT, node.kernelFacts().iommu().presence());

        assertFalse(report(node, "nvml").ran());
        assertTrue(report(node, "nvml").detail().startsWith("NVML not asked"), report(node, "nvml").detail());
        assertTrue(report(node, "gpus").detail().startsWith("2 NVIDIA GPUs from sysfs (without NVML"), report(node, "gpus").detail());
        assertTrue(report(node, "rdma").detail().startsWith("mlx5_0 0000:44:00.0 RoCE [port 1 4: ACTIVE 200 Gb/s]"), report(node, "rdma").detail());
        assertEquals("localhost", node.hostname(), "no procfs in the options");
    }

    @Test
    void aMissingSysfsTreeLeavesReportsNotExceptions()
    {
        NodeTopology node = MachineProber.probe(new ProbeOptions(temp.resolve("nothing"), temp.resolve("noproc"), false),
                NvmlProbe.probe(TestingNvmlLibrary.workstationWithoutP2p()));
        // NVML still names the GPUs; without a PCI tree nothing relates them
        assertEquals(2, node.gpus().size());
        assertTrue(node.relations().isEmpty());
        assertEquals(1, node.p2pStatuses().size());
        assertFalse(report(node, "sysfs").ran());
        assertFalse(report(node, "pcie").ran());
        assertEquals(Presence.UNKNOWN, node.kernelFacts().peerMemory().presence());
        assertEquals(Presence.UNKNOWN, node.kernelFacts().nvidiaFs().presence());
        assertFalse(report(node, "numa").ran());
    }

    @Test
    void nvmlUnavailableIsReportedAndSysfsStillNamesTheGpus()
    {
        SysfsTreeBuilder tree = new SysfsTreeBuilder(temp.resolve("sys"));
        tree.pci("pci0000:00/0000:00:01.0/0000:01:00.0", CLASS_3D_CONTROLLER, VENDOR_NVIDIA, 0x20b5);
        NodeTopology node = MachineProber.probe(new ProbeOptions(tree.root(), proc("box"), false),
                NvmlProbeResult.unavailable("UnsatisfiedLinkError: no jninvml"));
        assertEquals(1, node.gpus().size());
        assertEquals("NVML unavailable: UnsatisfiedLinkError: no jninvml", report(node, "nvml").detail());
        assertTrue(report(node, "gpus").ran());
    }

    /** An HGX H100-like tree: each GPU behind its own switch on its own host bridge, NIC and NVMe beside GPU0. */
    private static SysfsTreeBuilder hgxTree(Path root)
    {
        SysfsTreeBuilder tree = new SysfsTreeBuilder(root);
        tree.numaNode(0, "0-47").numaNode(1, "48-95");
        List<Integer> buses = List.of(0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb);
        for (int index = 0; index < buses.size(); index++) {
            int bus = buses.get(index);
            int node = index < 4 ? 0 : 1;
            String rootPort = String.format("pci0000:%02x/0000:%02x:01.0", bus - 3, bus - 3);
            tree.bridge(rootPort, VENDOR_INTEL).numa(node);
            String upstream = String.format("%s/0000:%02x:00.0", rootPort, bus - 2);
            tree.pci(upstream, SysfsTreeBuilder.CLASS_BRIDGE, VENDOR_BROADCOM, 0xc030).link("32.0 GT/s PCIe", 16).numa(node);
            tree.pci(String.format("%s/0000:%02x:00.0", upstream, bus - 1), SysfsTreeBuilder.CLASS_BRIDGE, VENDOR_BROADCOM, 0xc030).link("32.0 GT/s PCIe", 16).numa(node);
            tree.pci(String.format("%s/0000:%02x:00.0/0000:%02x:00.0", upstream, bus - 1, bus), CLASS_3D_CONTROLLER, VENDOR_NVIDIA, 0x2330)
                    .link("32.0 GT/s PCIe", 16).numa(node);
        }
        String upstream = "pci0000:15/0000:15:01.0/0000:16:00.0";
        tree.pci(upstream + "/0000:17:01.0", SysfsTreeBuilder.CLASS_BRIDGE, VENDOR_BROADCOM, 0xc030).link("32.0 GT/s PCIe", 16).numa(0);
        tree.pci(upstream + "/0000:17:01.0/0000:19:00.0", CLASS_INFINIBAND, VENDOR_MELLANOX, 0x1021).link("32.0 GT/s PCIe", 16).numa(0);
        tree.pci(upstream + "/0000:17:02.0", SysfsTreeBuilder.CLASS_BRIDGE, VENDOR_BROADCOM, 0xc030).link("32.0 GT/s PCIe", 16).numa(0);
        tree.pci(upstream + "/0000:17:02.0/0000:1a:00.0", CLASS_NVME, VENDOR_SAMSUNG, 0xa824).link("16.0 GT/s PCIe", 4).numa(0);
        tree.infiniband("mlx5_0", "0000:19:00.0", "1: CA").port(1, "InfiniBand", "4: ACTIVE", "5: LinkUp", "400 Gb/sec (4X NDR)");
        tree.netdev("ibp25s0", "0000:19:00.0", 32, "up", "400000");
        tree.nvmeController("nvme0", "0000:1a:00.0", "pcie");
        for (int index = 0; index < 4; index++) {
            tree.pci(String.format("pci0000:00/0000:00:%02x.0/0000:%02x:00.0", index + 1, index + 5), CLASS_NVSWITCH, VENDOR_NVIDIA, 0x22a3);
        }
        return tree;
    }

    private Path proc(String hostname)
    {
        SysfsTreeBuilder proc = new SysfsTreeBuilder(temp.resolve("proc"));
        proc.file("sys/kernel/hostname", hostname);
        proc.file("cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n\nprocessor\t: 1\nvendor_id\t: GenuineIntel\n");
        return proc.root();
    }

    private static ProbeReport report(NodeTopology node, String probe)
    {
        return node.reports().stream().filter(report -> report.probe().equals(probe)).findFirst().orElseThrow(() -> new AssertionError("no " + probe + " report: " + node.reports()));
    }
}
