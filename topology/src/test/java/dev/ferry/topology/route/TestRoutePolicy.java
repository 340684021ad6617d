package dev.ferry.topology.route;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.conf.ConfigDocs;
import dev.ferry.conf.ConfigKeySet;
import dev.ferry.conf.MapConfigSource;
import dev.ferry.topology.TopologyConfigKeys;
import dev.ferry.topology.model.CpuInfo;
import dev.ferry.topology.model.FilePlacement;
import dev.ferry.topology.model.Gpu;
import dev.ferry.topology.model.KernelFact;
import dev.ferry.topology.model.KernelFacts;
import dev.ferry.topology.model.LinkLayer;
import dev.ferry.topology.model.NetInterface;
import dev.ferry.topology.model.Nic;
import dev.ferry.topology.model.NicPort;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.model.NvmeDrive;
import dev.ferry.topology.model.P2pAccess;
import dev.ferry.topology.model.P2pStatus;
import dev.ferry.topology.model.PathClass;
import dev.ferry.topology.model.PcieLink;
import dev.ferry.topology.model.PeerMemory;
import dev.ferry.topology.model.Presence;
import dev.ferry.topology.model.Relation;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestRoutePolicy
{
    private static final RoutePolicy POLICY = new RoutePolicy(RoutePolicyConfig.defaults());
    private static final KernelFacts ALL_PRESENT = new KernelFacts(PeerMemory.present("nvidia_peermem", "test"),
            new KernelFact(Presence.PRESENT, "test"), new KernelFact(Presence.ABSENT, "test"));

    @Test
    void pciePeerAccessNeedsNvmlToAgree()
    {
        NodeTopology unknown = pciePair(PathClass.PIX).build();
        RouteDecision decision = POLICY.gpuToGpu(unknown, "GPU0", "GPU1");
        assertEquals(Route.PCIE_P2P, decision.route());
        assertTrue(decision.notes().stream().anyMatch(note -> note.contains("not probed")), decision.notes().toString());
        assertEquals(24.0, decision.bandwidthGBps(), 1e-9);
        assertEquals("PCIe Gen4 x16 = 24 GB/s (sysfs)", decision.bandwidthSource());

        NodeTopology ok = pciePair(PathClass.PIX).p2pStatus(new P2pStatus("GPU1", "GPU0", P2pAccess.ok(), P2pAccess.ok())).build();
        assertEquals(Route.PCIE_P2P, POLICY.gpuToGpu(ok, "GPU0", "GPU1").route());
        assertTrue(POLICY.gpuToGpu(ok, "GPU0", "GPU1").vetoes().isEmpty());

        NodeTopology refused = pciePair(PathClass.PIX)
                .p2pStatus(new P2pStatus("GPU0", "GPU1", P2pAccess.ok(), P2pAccess.notSupported(1, "NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED")))
                .build();
        RouteDecision vetoed = POLICY.gpuToGpu(refused, "GPU0", "GPU1");
        assertEquals(Route.HOST_STAGED, vetoed.route());
        assertEquals(List.of("NVML P2P WRITE status NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED (code 1)"), vetoed.vetoes());
        assertEquals(Route.PCIE_P2P, vetoed.runnerUp().orElseThrow().route());
        assertTrue(vetoed.reason().contains("on NUMA node 0"), vetoed.reason());

        NodeTopology nvlinkRefused = NodeTopology.builder("h").gpu(gpu(0, "9.0")).gpu(gpu(1, "9.0"))
                .relation(Relation.nvlink("GPU0", "GPU1", 18, "nvml"))
                .p2pStatus(new P2pStatus("GPU0", "GPU1", P2pAccess.notSupported(4, "NVML_P2P_STATUS_DISABLED_BY_REGKEY"), P2pAccess.ok()))
                .build();
        assertEquals(Route.HOST_STAGED, POLICY.gpuToGpu(nvlinkRefused, "GPU0", "GPU1").route());
    }

    @Test
    void p2pLevelIsConfigurableAndNodeCountsAsPhb()
    {
        NodeTopology node = pciePair(PathClass.NODE).build();
        assertEquals(Route.HOST_STAGED, POLICY.gpuToGpu(node, "GPU0", "GPU1").route());
        RoutePolicy phb = new RoutePolicy(RoutePolicyConfig.from(new MapConfigSource(Map.of("spark.ferry.route.p2pLevel", "phb"))));
        RouteDecision decision = phb.gpuToGpu(node, "GPU0", "GPU1");
        assertEquals(Route.PCIE_P2P, decision.route());
        assertEquals("spark.ferry.route.p2pLevel=PHB (set)", decision.threshold());
        assertEquals(Route.HOST_STAGED, phb.gpuToGpu(pciePair(PathClass.SYS).build(), "GPU0", "GPU1").route());

        RoutePolicy off = new RoutePolicy(RoutePolicyConfig.from(new MapConfigSource(Map.of("spark.ferry.route.p2pLevel", "self"))));
        NodeTopology nvlink = NodeTopology.builder("h").gpu(gpu(0, "8.0")).gpu(gpu(1, "8.0")).relation(Relation.nvlink("GPU0", "GPU1", 12, "nvml")).build();
        assertEquals(Route.NVLINK, POLICY.gpuToGpu(nvlink, "GPU0", "GPU1").route());
        assertEquals(Route.HOST_STAGED, off.gpuToGpu(nvlink, "GPU0", "GPU1").route());
        assertEquals(Route.LOCAL, POLICY.gpuToGpu(nvlink, "GPU1", "GPU1").route());
    }

    @Test
    void nvlinkBandwidthFollowsTheComputeCapability()
    {
        RouteDecision hopper = POLICY.gpuToGpu(nvlinkPair("9.0", "9.0", 18), "GPU0", "GPU1");
        assertEquals(370.8, hopper.bandwidthGBps(), 1e-9);
        assertEquals("NCCL SM90 NVLink 20.6 GB/s x 18 links", hopper.bandwidthSource());
        assertEquals(12 * 12.0, POLICY.gpuToGpu(nvlinkPair("8.6", "8.6", 12), "GPU0", "GPU1").bandwidthGBps(), 1e-9);
        assertEquals(2 * 20.0, POLICY.gpuToGpu(nvlinkPair("7.0", "9.0", 2), "GPU0", "GPU1").bandwidthGBps(), 1e-9, "the older GPU sets the pace");
        assertEquals(4 * 40.1, POLICY.gpuToGpu(nvlinkPair("10.0", "10.0", 4), "GPU0", "GPU1").bandwidthGBps(), 1e-9);
        RoutePolicy tuned = new RoutePolicy(RoutePolicyConfig.from(new MapConfigSource(Map.of("spark.ferry.topology.nvlinkBandwidth.sm90", "25"))));
        RouteDecision configured = tuned.gpuToGpu(nvlinkPair("9.0", "9.0", 18), "GPU0", "GPU1");
        assertEquals(450.0, configured.bandwidthGBps(), 1e-9);
        assertTrue(configured.bandwidthSource().startsWith("spark.ferry.topology.nvlinkBandwidth.sm90"), configured.bandwidthSource());
    }

    @Test
    void sysPathsAreCappedByTheInterSocketLink()
    {
        NodeTopology amd = pciePair(PathClass.SYS).cpu(new CpuInfo("AuthenticAMD", "x86_64", OptionalInt.of(25), OptionalInt.of(1))).build();
        RouteDecision decision = POLICY.gpuToGpu(amd, "GPU0", "GPU1");
        assertEquals(16.0, decision.bandwidthGBps(), 1e-9);
        assertTrue(decision.bandwidthSource().contains("AMD_BW"));
        NodeTopology broadwell = pciePair(PathClass.SYS).cpu(new CpuInfo("GenuineIntel", "x86_64", OptionalInt.of(6), OptionalInt.of(0x4F))).build();
        assertEquals(6.0, POLICY.gpuToGpu(broadwell, "GPU0", "GPU1").bandwidthGBps(), 1e-9);
        NodeTopology sapphire = pciePair(PathClass.SYS).cpu(new CpuInfo("GenuineIntel", "x86_64", OptionalInt.of(6), OptionalInt.of(0x8F))).build();
        assertEquals(22.0, POLICY.gpuToGpu(sapphire, "GPU0", "GPU1").bandwidthGBps(), 1e-9);
        assertEquals(10.0, POLICY.gpuToGpu(pciePair(PathClass.SYS).build(), "GPU0", "GPU1").bandwidthGBps(), 1e-9);
    }

    @Test
    void gpuDirectRdmaNeedsPeerMemoryAndProximity()
    {
        NodeTopology node = nicNode(PathClass.PXB, ALL_PRESENT);
        RouteDecision direct = POLICY.gpuToNic(node, "GPU0", "mlx5_0");
        assertEquals(Route.GPUDIRECT_RDMA, direct.route());
        assertEquals(24.0, direct.bandwidthGBps(), 1e-9, "PCIe Gen4 x16 below the 400 Gb/s NIC");
        assertTrue(direct.reason().contains("nvidia_peermem"), direct.reason());

        RouteDecision absent = POLICY.gpuToNic(nicNode(PathClass.PIX, ALL_PRESENT.withPeerMemory(PeerMemory.absent("no /sys/module/nvidia_peermem"))), "GPU0", "mlx5_0");
        assertEquals(Route.RDMA_HOST_STAGED, absent.route());
        assertTrue(absent.vetoes().get(0).contains("no /sys/module/nvidia_peermem"));

        RouteDecision dmabuf = POLICY.gpuToNic(nicNode(PathClass.PIX, ALL_PRESENT.withPeerMemory(PeerMemory.present("dma-buf", "probe"))), "GPU0", "mlx5_0");
        assertEquals(Route.GPUDIRECT_RDMA, dmabuf.route());

        RouteDecision far = POLICY.gpuToNic(nicNode(PathClass.PHB, ALL_PRESENT), "GPU0", "mlx5_0");
        assertEquals(Route.RDMA_HOST_STAGED, far.route());
        assertTrue(far.runnerUp().orElseThrow().whyNot().contains("beyond spark.ferry.route.gdrLevel=PXB"));
        RoutePolicy phb = new RoutePolicy(RoutePolicyConfig.from(new MapConfigSource(Map.of("spark.ferry.route.gdrLevel", "PHB"))));
        assertEquals(Route.GPUDIRECT_RDMA, phb.gpuToNic(nicNode(PathClass.NODE, ALL_PRESENT), "GPU0", "mlx5_0").route());

        RouteDecision iommu = POLICY.gpuToNic(nicNode(PathClass.PIX, ALL_PRESENT.withIommu(new KernelFact(Presence.PRESENT, "12 IOMMU groups"))), "GPU0", "mlx5_0");
        assertEquals(Route.GPUDIRECT_RDMA, iommu.route());
        assertTrue(iommu.notes().stream().anyMatch(note -> note.contains("IOMMU")));
    }

    @Test
    void gdsEligibility()
    {
        NodeTopology node = gdsNode(PathClass.PIX, ALL_PRESENT);
        RouteDecision gds = POLICY.gpuToFile(node, Optional.of("GPU0"), placement("ext4", List.of("rw", "data=ordered"), List.of("nvme0n1p1"), "nvme0"), FileConsumer.DEVICE);
        assertEquals(Route.GDS, gds.route());
        assertEquals("PIX", gds.path());
        assertTrue(gds.vetoes().isEmpty());
        assertEquals(Route.GDS, POLICY.gpuToFile(node, Optional.of("GPU0"), placement("xfs", List.of("rw"), List.of("nvme0n1"), "nvme0"), FileConsumer.DEVICE).route());

        RouteDecision lvm = POLICY.gpuToFile(node, Optional.of("GPU0"), placement("ext4", List.of("data=ordered"), List.of("dm-0", "nvme0n1p2"), "nvme0"), FileConsumer.DEVICE);
        assertEquals(Route.BOUNCE, lvm.route());
        assertTrue(lvm.reason().contains("device-mapper"), lvm.reason());
        assertEquals(Route.GDS, lvm.runnerUp().orElseThrow().route());
        assertTrue(POLICY.gpuToFile(node, Optional.of("GPU0"), placement("xfs", List.of(), List.of("md0", "nvme0n1"), "nvme0"), FileConsumer.DEVICE).reason().contains("md software RAID"));
        assertTrue(POLICY.gpuToFile(node, Optional.of("GPU0"), placement("xfs", List.of(), List.of("loop3"), ""), FileConsumer.DEVICE).reason().contains("loop device"));

        RouteDecision journal = POLICY.gpuToFile(node, Optional.of("GPU0"), placement("ext4", List.of("data=journal"), List.of("nvme0n1"), "nvme0"), FileConsumer.DEVICE);
        assertEquals(Route.BOUNCE, journal.route());
        assertTrue(journal.reason().contains("data=journal"));
        assertTrue(POLICY.gpuToFile(node, Optional.of("GPU0"), placement("nfs", List.of(), List.of(), ""), FileConsumer.DEVICE).reason().contains("filesystem nfs"));

        RouteDecision host = POLICY.gpuToFile(node, Optional.empty(), placement("ext4", List.of(), List.of("nvme0n1"), "nvme0"), FileConsumer.CPU);
        assertEquals(Route.HOST, host.route());

        RouteDecision far = POLICY.gpuToFile(gdsNode(PathClass.SYS, ALL_PRESENT), Optional.of("GPU0"), placement("ext4", List.of(), List.of("nvme0n1"), "nvme0"), FileConsumer.DEVICE);
        assertEquals(Route.BOUNCE, far.route());
        assertTrue(far.reason().contains("SYS between GPU0 and nvme0 is beyond spark.ferry.route.gdsLevel=PXB"), far.reason());

        RouteDecision compat = POLICY.gpuToFile(gdsNode(PathClass.PIX, ALL_PRESENT.withNvidiaFs(new KernelFact(Presence.ABSENT, "no /sys/module/nvidia_fs"))),
                Optional.of("GPU0"), placement("ext4", List.of(), List.of("nvme0n1"), "nvme0"), FileConsumer.DEVICE);
        assertEquals(Route.BOUNCE, compat.route());
        assertTrue(compat.vetoes().get(0).contains("compat mode"));

        RouteDecision drive = POLICY.gpuToNvme(node, "GPU0", "nvme0");
        assertEquals(Route.GDS, drive.route());
        assertEquals("nvme0", drive.target());
    }

    @Test
    void clusterRoutes()
    {
        NodeTopology ibA = networkNode("a", LinkLayer.INFINIBAND, true, 400);
        NodeTopology ibB = networkNode("b", LinkLayer.INFINIBAND, true, 200);
        RouteDecision ib = POLICY.nodeToNode(ibA, ibB);
        assertEquals(Route.RDMA, ib.route());
        assertTrue(ib.reason().contains("InfiniBand"), ib.reason());
        assertEquals(25.0, ib.bandwidthGBps(), 1e-9, "the slower end: 200 Gb/s");

        RouteDecision roce = POLICY.nodeToNode(networkNode("a", LinkLayer.ROCE, true, 100), networkNode("b", LinkLayer.ROCE, true, 100));
        assertEquals(Route.RDMA, roce.route());
        assertTrue(roce.reason().contains("RoCE"), roce.reason());
        RouteDecision iwarp = POLICY.nodeToNode(networkNode("a", LinkLayer.IWARP, true, 100), networkNode("b", LinkLayer.IWARP, true, 100));
        assertTrue(iwarp.reason().contains("iWARP"), iwarp.reason());

        RouteDecision mismatch = POLICY.nodeToNode(ibA, networkNode("b", LinkLayer.ROCE, true, 100));
        assertEquals(Route.TCP, mismatch.route());
        assertTrue(mismatch.vetoes().get(0).contains("no common link layer"), mismatch.vetoes().toString());

        RouteDecision down = POLICY.nodeToNode(ibA, networkNode("b", LinkLayer.INFINIBAND, false, 400));
        assertEquals(Route.TCP, down.route());
        assertTrue(down.vetoes().contains("b has no active RDMA NIC"), down.vetoes().toString());

        NodeTopology ipoibA = NodeTopology.builder("a").netInterface(new NetInterface("ib0", NetInterface.Kind.IPOIB, 100000, Optional.empty(), true)).build();
        NodeTopology ipoibB = NodeTopology.builder("b").netInterface(new NetInterface("ib0", NetInterface.Kind.IPOIB, 100000, Optional.empty(), true)).build();
        RouteDecision ipoib = POLICY.nodeToNode(ipoibA, ipoibB);
        assertEquals(Route.IPOIB_TCP, ipoib.route());
        assertEquals(12.5, ipoib.bandwidthGBps(), 1e-9);

        RouteDecision nothing = POLICY.nodeToNode(NodeTopology.builder("a").build(), NodeTopology.builder("b").build());
        assertEquals(Route.TCP, nothing.route());
        assertEquals(Route.HOST_SHM, POLICY.nodeToNode(ibA, ibA).route());
    }

    @Test
    void gpuResidentBlocksAcrossNodes()
    {
        NodeTopology a = nicNode(PathClass.PIX, ALL_PRESENT);
        NodeTopology b = NodeTopology.builder("other").gpu(gpu(0, "9.0")).gpu(gpu(1, "9.0"))
                .nic(new Nic("mlx5_0", Optional.empty(), LinkLayer.INFINIBAND, List.of(new NicPort(1, "4: ACTIVE", true, 400)), OptionalInt.empty(), List.of()))
                .relation(new Relation("GPU0", "mlx5_0", PathClass.PIX, 0, Optional.of(new PcieLink(4, 16)), "sysfs"))
                .relation(new Relation("GPU1", "mlx5_0", PathClass.PIX, 0, Optional.of(new PcieLink(4, 16)), "sysfs"))
                .relation(new Relation("GPU0", "GPU1", PathClass.PIX, 0, Optional.of(new PcieLink(4, 16)), "sysfs"))
                .kernelFacts(ALL_PRESENT)
                .build();
        RouteDecision direct = POLICY.gpuAcrossNodes(a, "GPU0", b, "GPU0");
        assertEquals(Route.GPUDIRECT_RDMA, direct.route());
        assertTrue(direct.reason().contains("InfiniBand"));
        NodeTopology noPeerMemory = b.toBuilder().kernelFacts(ALL_PRESENT.withPeerMemory(PeerMemory.absent("not loaded"))).build();
        RouteDecision staged = POLICY.gpuAcrossNodes(a, "GPU0", noPeerMemory, "GPU0");
        assertEquals(Route.RDMA_HOST_STAGED, staged.route());
        assertTrue(staged.vetoes().get(0).startsWith("other GPU0-mlx5_0: no peer-memory module"), staged.vetoes().toString());
        assertEquals(Route.TCP, POLICY.gpuAcrossNodes(a, "GPU0", NodeTopology.builder("plain").gpu(gpu(0, "9.0")).build(), "GPU0").route());
    }

    @Test
    void configKeysAreRegisteredAndBadValuesAreUserErrors()
    {
        assertTrue(ConfigDocs.allSets().stream().anyMatch(set -> set instanceof TopologyConfigKeys));
        ConfigKeySet keys = new TopologyConfigKeys();
        assertTrue(keys.keys().stream().allMatch(key -> key.name().startsWith("spark.ferry.topology.") || key.name().startsWith("spark.ferry.route.")));
        FerryException level = assertThrows(FerryException.class, () -> RoutePolicyConfig.from(new MapConfigSource(Map.of("spark.ferry.route.p2pLevel", "near"))));
        assertEquals(ErrorCategory.USER_ERROR, level.category());
        assertTrue(level.getMessage().contains("spark.ferry.route.p2pLevel"));
        assertThrows(FerryException.class, () -> RoutePolicyConfig.from(new MapConfigSource(Map.of("spark.ferry.topology.interSocketBandwidth", "fast"))));
        assertThrows(FerryException.class, () -> RoutePolicyConfig.from(new MapConfigSource(Map.of("spark.ferry.topology.pcieBandwidth.unknown", "-1"))));
        RoutePolicy fixed = new RoutePolicy(RoutePolicyConfig.from(new MapConfigSource(Map.of("spark.ferry.topology.interSocketBandwidth", "5"))));
        assertEquals(5.0, fixed.gpuToGpu(pciePair(PathClass.SYS).build(), "GPU0", "GPU1").bandwidthGBps(), 1e-9);
    }

    private static Gpu gpu(int index, String computeCapability)
    {
        return Gpu.builder(index).computeCapability(computeCapability).numaNode(0).build();
    }

    @Test
    void aGpuPairDecisionFollowsWhereTheConsumerWantsTheBlock()
    {
        NodeTopology nvlink = nvlinkPair("9.0", "9.0", 18);
        RouteDecision device = POLICY.gpuToGpu(nvlink, "GPU0", "GPU1", BlockConsumer.DEVICE);
        assertEquals(Route.NVLINK, device.route());
        assertTrue(device.reason().contains("device consumer") && device.reason().contains("a peer copy into GPU1's memory"), device.reason());

        RouteDecision cpu = POLICY.gpuToGpu(nvlink, "GPU0", "GPU1", BlockConsumer.CPU);
        assertEquals(Route.PEER_GPU_D2H, cpu.route(), "a CPU consumer needs one D->H, not a peer copy");
        assertEquals(Route.NVLINK, cpu.runnerUp().get().route());
        assertTrue(cpu.runnerUp().get().whyNot().contains("two crossings"), cpu.runnerUp().get().whyNot());
        assertTrue(cpu.reason().contains("CPU consumer") && cpu.reason().contains("GPU0's own PCIe link"), cpu.reason());
        assertTrue(cpu.bandwidthGBps() < device.bandwidthGBps(), "the PCIe link, not NVLink, bounds a host read");

        NodeTopology pcie = pciePair(PathClass.PIX).build();
        assertEquals(Route.PCIE_P2P, POLICY.gpuToGpu(pcie, "GPU0", "GPU1", BlockConsumer.DEVICE).route());
        RouteDecision pcieCpu = POLICY.gpuToGpu(pcie, "GPU0", "GPU1", BlockConsumer.CPU);
        assertEquals(Route.PEER_GPU_D2H, pcieCpu.route());
        assertEquals(Route.PCIE_P2P, pcieCpu.runnerUp().get().route());
        assertTrue(pcieCpu.bandwidthSource().contains("Gen4 x16"), pcieCpu.bandwidthSource());

        // A pair without peer access: both consumers are staged through host memory by the exporter (a CPU consumer's one
        // D->H is the exporter's: the reader could import the IPC handle only in a context on the exporter's GPU).
        NodeTopology far = pciePair(PathClass.SYS).build();
        assertEquals(Route.HOST_STAGED, POLICY.gpuToGpu(far, "GPU0", "GPU1", BlockConsumer.DEVICE).route());
        RouteDecision farCpu = POLICY.gpuToGpu(far, "GPU0", "GPU1", BlockConsumer.CPU);
        assertEquals(Route.HOST_STAGED, farCpu.route());
        assertTrue(farCpu.reason().contains("CPU consumer") && farCpu.reason().contains("the exporter stages the block"), farCpu.reason());
        assertEquals(Route.LOCAL, POLICY.gpuToGpu(far, "GPU1", "GPU1", BlockConsumer.CPU).route());
    }

    private static NodeTopology.Builder pciePair(PathClass pathClass)
    {
        return NodeTopology.builder("h").gpu(gpu(0, "8.0")).gpu(gpu(1, "8.0"))
                .relation(new Relation("GPU0", "GPU1", pathClass, 0, Optional.of(new PcieLink(4, 16)), "sysfs"));
    }

    private static NodeTopology nvlinkPair(String a, String b, int links)
    {
        return NodeTopology.builder("h").gpu(gpu(0, a)).gpu(gpu(1, b)).relation(Relation.nvlink("GPU0", "GPU1", links, "nvml")).build();
    }

    private static NodeTopology nicNode(PathClass pathClass, KernelFacts kernel)
    {
        return NodeTopology.builder("h").gpu(gpu(0, "9.0"))
                .nic(new Nic("mlx5_0", Optional.empty(), LinkLayer.INFINIBAND, List.of(new NicPort(1, "4: ACTIVE", true, 400)), OptionalInt.of(0), List.of("ib0")))
                .relation(new Relation("GPU0", "mlx5_0", pathClass, 0, Optional.of(new PcieLink(4, 16)), "sysfs"))
                .kernelFacts(kernel)
                .build();
    }

    private static NodeTopology gdsNode(PathClass pathClass, KernelFacts kernel)
    {
        return NodeTopology.builder("h").gpu(gpu(0, "9.0"))
                .nvme(new NvmeDrive("nvme0", Optional.empty(), "pcie", List.of("nvme0n1"), OptionalInt.of(0)))
                .relation(new Relation("GPU0", "nvme0", pathClass, 0, Optional.of(new PcieLink(4, 4)), "sysfs"))
                .kernelFacts(kernel)
                .build();
    }

    private static FilePlacement placement(String filesystem, List<String> options, List<String> devices, String controller)
    {
        return new FilePlacement("/data/part-0.parquet", "/data", filesystem, options, devices, controller.isEmpty() ? Optional.empty() : Optional.of(controller));
    }

    private static NodeTopology networkNode(String host, LinkLayer layer, boolean active, double rate)
    {
        return NodeTopology.builder(host)
                .nic(new Nic("mlx5_0", Optional.empty(), layer, List.of(new NicPort(1, active ? "4: ACTIVE" : "1: DOWN", active, rate)), OptionalInt.empty(), List.of()))
                .build();
    }
}
