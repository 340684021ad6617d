package dev.ferry.topology.probe.sysfs;

import dev.ferry.topology.model.PathClass;
import dev.ferry.topology.model.PciAddress;
import dev.ferry.topology.probe.SysfsTreeBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import static dev.ferry.topology.probe.SysfsTreeBuilder.CLASS_3D_CONTROLLER;
import static dev.ferry.topology.probe.SysfsTreeBuilder.CLASS_INFINIBAND;
import static dev.ferry.topology.probe.SysfsTreeBuilder.CLASS_NVME;
import static dev.ferry.topology.probe.SysfsTreeBuilder.VENDOR_INTEL;
import static dev.ferry.topology.probe.SysfsTreeBuilder.VENDOR_MELLANOX;
import static dev.ferry.topology.probe.SysfsTreeBuilder.VENDOR_NVIDIA;
import static dev.ferry.topology.probe.SysfsTreeBuilder.VENDOR_SAMSUNG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestPciPathClassifier
{
    private static final String ROOT_PORT = "pci0000:00/0000:00:01.0";

    @TempDir
    Path temp;

    @Test
    void gpuNicAndNvmeBehindOneSwitchArePix()
    {
        SysfsTreeBuilder tree = new SysfsTreeBuilder(temp.resolve("sys"));
        tree.bridge(ROOT_PORT, VENDOR_INTEL);
        String upstream = ROOT_PORT + "/0000:01:00.0";
        tree.bridge(upstream, SysfsTreeBuilder.VENDOR_BROADCOM);
        tree.bridge(upstream + "/0000:02:00.0", SysfsTreeBuilder.VENDOR_BROADCOM);
        tree.bridge(upstream + "/0000:02:01.0", SysfsTreeBuilder.VENDOR_BROADCOM);
        tree.bridge(upstream + "/0000:02:02.0", SysfsTreeBuilder.VENDOR_BROADCOM);
        tree.pci(upstream + "/0000:02:00.0/0000:03:00.0", CLASS_3D_CONTROLLER, VENDOR_NVIDIA, 0x2330).link("32.0 GT/s PCIe", 16);
        tree.pci(upstream + "/0000:02:01.0/0000:04:00.0", CLASS_INFINIBAND, VENDOR_MELLANOX, 0x1021).link("32.0 GT/s PCIe", 16);
        tree.pci(upstream + "/0000:02:01.0/0000:04:00.1", CLASS_INFINIBAND, VENDOR_MELLANOX, 0x1021).link("32.0 GT/s PCIe", 16);
        tree.pci(upstream + "/0000:02:02.0/0000:05:00.0", CLASS_NVME, VENDOR_SAMSUNG, 0xa80a).link("16.0 GT/s PCIe", 4);
        Map<PciAddress, SysfsPciDevice> devices = new PciDeviceScanner(new SysfsReader(tree.root())).scan();
        PciPathClassifier classifier = new PciPathClassifier(devices);
        SysfsPciDevice gpu = devices.get(PciAddress.parse("0000:03:00.0"));
        SysfsPciDevice nic = devices.get(PciAddress.parse("0000:04:00.0"));
        SysfsPciDevice nicPort2 = devices.get(PciAddress.parse("0000:04:00.1"));
        SysfsPciDevice nvme = devices.get(PciAddress.parse("0000:05:00.0"));

        assertEquals(List.of(PciAddress.parse("0000:00:01.0"), PciAddress.parse("0000:01:00.0"), PciAddress.parse("0000:02:00.0"), gpu.address()), gpu.chain());
        assertEquals("pci0000:00", gpu.rootComplex());
        PciPath gpuToNic = classifier.classify(gpu, nic);
        assertEquals(PathClass.PIX, gpuToNic.pathClass(), gpuToNic.reason());
        assertEquals(List.of("0000:03:00.0", "0000:02:00.0", "0000:01:00.0", "0000:02:01.0", "0000:04:00.0"), gpuToNic.hops());
        // Gen5 devices behind a Gen4 switch: the switch links are the bottleneck
        assertEquals(4, gpuToNic.bottleneck().effectiveGeneration());
        assertEquals(16, gpuToNic.bottleneck().effectiveWidth());
        assertEquals(PathClass.PIX, classifier.classify(gpu, nvme).pathClass());
        assertEquals(4, classifier.classify(gpu, nvme).bottleneck().effectiveWidth(), "the NVMe's x4 link is narrowest");
        assertEquals(PathClass.PIX, classifier.classify(nvme, nic).pathClass());
        assertEquals(PathClass.PIX, classifier.classify(nic, nicPort2).pathClass(), "two functions of one card");
        assertEquals(PathClass.SELF, classifier.classify(gpu, gpu).pathClass());
    }

    @Test
    void gpusUnderDifferentSwitchesOfOneRootPortArePxb()
    {
        SysfsTreeBuilder tree = new SysfsTreeBuilder(temp.resolve("sys"));
        tree.bridge(ROOT_PORT, VENDOR_INTEL);
        String left = tree.switchBelow(ROOT_PORT, "0000:01:00.0", "0000:02:00.0");
        tree.bridge(ROOT_PORT + "/0000:01:00.0/0000:02:01.0", SysfsTreeBuilder.VENDOR_BROADCOM);
        String right = ROOT_PORT + "/0000:01:00.0/0000:02:01.0";
        String leftLeaf = tree.switchBelow(left, "0000:03:00.0", "0000:04:00.0");
        String rightLeaf = tree.switchBelow(right, "0000:06:00.0", "0000:07:00.0");
        tree.pci(leftLeaf + "/0000:05:00.0", CLASS_3D_CONTROLLER, VENDOR_NVIDIA, 0x20b0).link("16.0 GT/s PCIe", 16);
        tree.pci(rightLeaf + "/0000:08:00.0", CLASS_3D_CONTROLLER, VENDOR_NVIDIA, 0x20b0).link("16.0 GT/s PCIe", 16);
        tree.pci(ROOT_PORT + "/0000:01:00.0/0000:02:02.0/0000:09:00.0", CLASS_INFINIBAND, VENDOR_MELLANOX, 0x101b).link("16.0 GT/s PCIe", 16);
        tree.bridge(ROOT_PORT + "/0000:01:00.0/0000:02:02.0", SysfsTreeBuilder.VENDOR_BROADCOM);
        Map<PciAddress, SysfsPciDevice> devices = new PciDeviceScanner(new SysfsReader(tree.root())).scan();
        PciPathClassifier classifier = new PciPathClassifier(devices);
        SysfsPciDevice gpu0 = devices.get(PciAddress.parse("0000:05:00.0"));
        SysfsPciDevice gpu1 = devices.get(PciAddress.parse("0000:08:00.0"));
        SysfsPciDevice nic = devices.get(PciAddress.parse("0000:09:00.0"));

        PciPath gpus = classifier.classify(gpu0, gpu1);
        assertEquals(PathClass.PXB, gpus.pathClass(), gpus.reason());
        assertTrue(gpus.reason().contains("0000:01:00.0"), gpus.reason());
        assertEquals(PathClass.PXB, classifier.classify(gpu0, nic).pathClass(), "GPU two switches down, NIC one: still several switches");
        assertEquals(PathClass.PXB, classifier.classify(nic, gpu1).pathClass(), "symmetric");
    }

    @Test
    void twoLevelBroadcomPexSwitchesCountAsOneSwitch()
    {
        for (int generation : new int[] {4, 5}) {
            SysfsTreeBuilder tree = new SysfsTreeBuilder(temp.resolve("gen" + generation));
            int device = generation == 4 ? 0xc010 : 0xc030;
            tree.bridge(ROOT_PORT, VENDOR_INTEL);
            String outerUp = ROOT_PORT + "/0000:01:00.0";
            tree.pci(outerUp, SysfsTreeBuilder.CLASS_BRIDGE, SysfsTreeBuilder.VENDOR_BROADCOM, device).subsystem(0x1000, generation == 4 ? 0xa064 : 0x0000);
            tree.pci(outerUp + "/0000:02:00.0", SysfsTreeBuilder.CLASS_BRIDGE, SysfsTreeBuilder.VENDOR_BROADCOM, device).subsystem(0x1000, generation == 4 ? 0xa064 : 0x0000);
            tree.pci(outerUp + "/0000:02:01.0", SysfsTreeBuilder.CLASS_BRIDGE, SysfsTreeBuilder.VENDOR_BROADCOM, device).subsystem(0x1000, generation == 4 ? 0xa064 : 0x0000);
            String innerUp = outerUp + "/0000:02:00.0/0000:03:00.0";
            tree.pci(innerUp, SysfsTreeBuilder.CLASS_BRIDGE, SysfsTreeBuilder.VENDOR_BROADCOM, device).subsystem(0x1000, generation == 4 ? 0xa064 : 0x1000);
            tree.pci(innerUp + "/0000:04:00.0", SysfsTreeBuilder.CLASS_BRIDGE, SysfsTreeBuilder.VENDOR_BROADCOM, device).subsystem(0x1000, generation == 4 ? 0xa064 : 0x1000);
            tree.pci(innerUp + "/0000:04:00.0/0000:05:00.0", CLASS_3D_CONTROLLER, VENDOR_NVIDIA, 0x2330);
            tree.pci(outerUp + "/0000:02:01.0/0000:06:00.0", CLASS_INFINIBAND, VENDOR_MELLANOX, 0x1021);
            Map<PciAddress, SysfsPciDevice> devices = new PciDeviceScanner(new SysfsReader(tree.root())).scan();
            PciPath path = new PciPathClassifier(devices).classify(devices.get(PciAddress.parse("0000:05:00.0")), devices.get(PciAddress.parse("0000:06:00.0")));
            assertEquals(PathClass.PIX, path.pathClass(), "Gen" + generation + ": " + path.reason());
        }
        // The same shape built from two PLX switches is two switches
        SysfsTreeBuilder plx = new SysfsTreeBuilder(temp.resolve("plx"));
        plx.bridge(ROOT_PORT, VENDOR_INTEL);
        String up = ROOT_PORT + "/0000:01:00.0";
        plx.pci(up, SysfsTreeBuilder.CLASS_BRIDGE, 0x10b5, 0x8747);
        plx.pci(up + "/0000:02:00.0", SysfsTreeBuilder.CLASS_BRIDGE, 0x10b5, 0x8747);
        plx.pci(up + "/0000:02:01.0", SysfsTreeBuilder.CLASS_BRIDGE, 0x10b5, 0x8747);
        plx.pci(up + "/0000:02:00.0/0000:03:00.0", SysfsTreeBuilder.CLASS_BRIDGE, 0x10b5, 0x8747);
        plx.pci(up + "/0000:02:00.0/0000:03:00.0/0000:04:00.0", SysfsTreeBuilder.CLASS_BRIDGE, 0x10b5, 0x8747);
        plx.pci(up + "/0000:02:00.0/0000:03:00.0/0000:04:00.0/0000:05:00.0", CLASS_3D_CONTROLLER, VENDOR_NVIDIA, 0x1db4);
        plx.pci(up + "/0000:02:01.0/0000:06:00.0", CLASS_INFINIBAND, VENDOR_MELLANOX, 0x1013);
        Map<PciAddress, SysfsPciDevice> devices = new PciDeviceScanner(new SysfsReader(plx.root())).scan();
        PciPath path = new PciPathClassifier(devices).classify(devices.get(PciAddress.parse("0000:05:00.0")), devices.get(PciAddress.parse("0000:06:00.0")));
        assertEquals(PathClass.PXB, path.pathClass(), path.reason());
        assertTrue(path.reason().contains("cross 2 PCIe switches"), path.reason());
    }

    @Test
    void hostBridgesAndNumaNodesGivePhbNodeAndSys()
    {
        SysfsTreeBuilder tree = new SysfsTreeBuilder(temp.resolve("sys"));
        tree.bridge("pci0000:00/0000:00:01.0", VENDOR_INTEL).numa(0);
        tree.bridge("pci0000:00/0000:00:02.0", VENDOR_INTEL).numa(0);
        tree.bridge("pci0000:40/0000:40:01.0", VENDOR_INTEL).numa(0);
        tree.bridge("pci0000:80/0000:80:01.0", VENDOR_INTEL).numa(1);
        tree.pci("pci0000:00/0000:00:01.0/0000:01:00.0", CLASS_3D_CONTROLLER, VENDOR_NVIDIA, 0x1db4).link("8 GT/s", 16).numa(0);
        tree.pci("pci0000:00/0000:00:02.0/0000:02:00.0", CLASS_INFINIBAND, VENDOR_MELLANOX, 0x1017).link("8 GT/s", 16).numa(0);
        tree.pci("pci0000:40/0000:40:01.0/0000:41:00.0", CLASS_3D_CONTROLLER, VENDOR_NVIDIA, 0x1db4).link("8 GT/s", 16).numa(0);
        tree.pci("pci0000:80/0000:80:01.0/0000:81:00.0", CLASS_3D_CONTROLLER, VENDOR_NVIDIA, 0x1db4).link("8 GT/s", 16).numa(1);
        Map<PciAddress, SysfsPciDevice> devices = new PciDeviceScanner(new SysfsReader(tree.root())).scan();
        PciPathClassifier classifier = new PciPathClassifier(devices);
        SysfsPciDevice gpu0 = devices.get(PciAddress.parse("0000:01:00.0"));
        SysfsPciDevice nic = devices.get(PciAddress.parse("0000:02:00.0"));
        SysfsPciDevice gpu1 = devices.get(PciAddress.parse("0000:41:00.0"));
        SysfsPciDevice gpu2 = devices.get(PciAddress.parse("0000:81:00.0"));

        assertEquals(OptionalInt.of(1), gpu2.numaNode());
        assertEquals(PathClass.PHB, classifier.classify(gpu0, nic).pathClass(), "different root ports, one host bridge");
        PciPath node = classifier.classify(gpu0, gpu1);
        assertEquals(PathClass.NODE, node.pathClass(), node.reason());
        assertTrue(node.reason().contains("NUMA node 0"), node.reason());
        assertEquals(List.of("0000:01:00.0", "0000:00:01.0", "pci0000:00", "pci0000:40", "0000:40:01.0", "0000:41:00.0"), node.hops());
        PciPath sys = classifier.classify(gpu1, gpu2);
        assertEquals(PathClass.SYS, sys.pathClass(), sys.reason());
        assertEquals(3, sys.bottleneck().effectiveGeneration(), "'8 GT/s' (kernel 5.6 spelling) is Gen3");
    }

    @Test
    void unknownNumaOnBothSidesCountsAsOneNode()
    {
        SysfsTreeBuilder tree = new SysfsTreeBuilder(temp.resolve("sys"));
        // An Azure-style VM: every GPU on its own host bridge, numa_node -1
        tree.pci("pci0001:00/0001:00:00.0", CLASS_3D_CONTROLLER, VENDOR_NVIDIA, 0x20b0);
        tree.pci("pci0002:00/0002:00:00.0", CLASS_3D_CONTROLLER, VENDOR_NVIDIA, 0x20b0);
        tree.pci("pci0003:00/0003:00:00.0", CLASS_3D_CONTROLLER, VENDOR_NVIDIA, 0x20b0).numa(1);
        Map<PciAddress, SysfsPciDevice> devices = new PciDeviceScanner(new SysfsReader(tree.root())).scan();
        PciPathClassifier classifier = new PciPathClassifier(devices);
        SysfsPciDevice first = devices.get(PciAddress.parse("0001:00:00.0"));
        assertEquals(List.of(first.address()), first.chain());
        assertEquals(PathClass.NODE, classifier.classify(first, devices.get(PciAddress.parse("0002:00:00.0"))).pathClass());
        assertEquals(PathClass.SYS, classifier.classify(first, devices.get(PciAddress.parse("0003:00:00.0"))).pathClass());
    }

    @Test
    void narrowerNegotiatedWidthIsReportedAsDownTrained()
    {
        SysfsTreeBuilder tree = new SysfsTreeBuilder(temp.resolve("sys"));
        tree.bridge(ROOT_PORT, VENDOR_INTEL);
        String port = tree.switchBelow(ROOT_PORT, "0000:01:00.0", "0000:02:00.0");
        tree.bridge(ROOT_PORT + "/0000:01:00.0/0000:02:01.0", VENDOR_INTEL);
        // The GPU idles at 2.5 GT/s (power saving, not a fault) but trained x8 of x16 (a fault)
        tree.pci(port + "/0000:03:00.0", CLASS_3D_CONTROLLER, VENDOR_NVIDIA, 0x20b0).link("16.0 GT/s PCIe", 16, "2.5 GT/s PCIe", 8);
        tree.pci(ROOT_PORT + "/0000:01:00.0/0000:02:01.0/0000:04:00.0", CLASS_INFINIBAND, VENDOR_MELLANOX, 0x101b).link("16.0 GT/s PCIe", 16);
        Map<PciAddress, SysfsPciDevice> devices = new PciDeviceScanner(new SysfsReader(tree.root())).scan();
        SysfsPciDevice gpu = devices.get(PciAddress.parse("0000:03:00.0"));
        assertTrue(gpu.link().isWidthDownTrained());
        assertTrue(gpu.link().isSpeedBelowMax());
        PciPath path = new PciPathClassifier(devices).classify(gpu, devices.get(PciAddress.parse("0000:04:00.0")));
        assertTrue(path.downTrained());
        assertEquals(8, path.bottleneck().effectiveWidth());
        assertEquals(4, path.bottleneck().effectiveGeneration(), "plan with the capable speed, the idle speed comes back under load");
        assertEquals("Gen4 x8 (down-trained from x16)", path.bottleneck().toString());

        PciPath healthy = new PciPathClassifier(devices).classify(devices.get(PciAddress.parse("0000:04:00.0")), devices.get(PciAddress.parse("0000:02:00.0")));
        assertFalse(healthy.downTrained());
    }
}
