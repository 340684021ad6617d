package dev.ferry.topology.probe.sysfs;

import dev.ferry.topology.model.LinkLayer;
import dev.ferry.topology.model.NetInterface;
import dev.ferry.topology.model.PciAddress;
import dev.ferry.topology.probe.SysfsTreeBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

import static dev.ferry.topology.probe.SysfsTreeBuilder.CLASS_ETHERNET;
import static dev.ferry.topology.probe.SysfsTreeBuilder.CLASS_INFINIBAND;
import static dev.ferry.topology.probe.SysfsTreeBuilder.VENDOR_INTEL;
import static dev.ferry.topology.probe.SysfsTreeBuilder.VENDOR_MELLANOX;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestRdmaAndNetScanners
{
    @TempDir
    Path temp;

    @Test
    void linkLayerTellsInfinibandRoceAndIwarpApart()
    {
        SysfsTreeBuilder tree = new SysfsTreeBuilder(temp.resolve("sys"));
        tree.bridge("pci0000:00/0000:00:01.0", VENDOR_INTEL);
        tree.pci("pci0000:00/0000:00:01.0/0000:01:00.0", CLASS_INFINIBAND, VENDOR_MELLANOX, 0x101b);
        tree.pci("pci0000:00/0000:00:01.0/0000:01:00.1", CLASS_ETHERNET, VENDOR_MELLANOX, 0x101b);
        tree.pci("pci0000:00/0000:00:02.0", CLASS_ETHERNET, 0x1425, 0x6408);
        tree.pci("pci0000:00/0000:00:03.0", CLASS_ETHERNET, VENDOR_INTEL, 0x1592);
        tree.infiniband("mlx5_0", "0000:01:00.0", "1: CA").port(1, "InfiniBand", "4: ACTIVE", "5: LinkUp", "400 Gb/sec (4X NDR)");
        tree.infiniband("mlx5_1", "0000:01:00.1", "1: CA").port(1, "Ethernet", "1: DOWN", "3: Disabled", "100 Gb/sec (2X HDR)");
        // Chelsio T6: iWARP says Ethernet as link layer; only node_type RNIC tells it apart from RoCE
        tree.infiniband("iw_cxgb4", "0000:00:02.0", "4: RNIC").port(1, "Ethernet", "4: ACTIVE", "5: LinkUp", "25 Gb/sec (1X EDR)");
        tree.infiniband("irdma0", "0000:00:03.0", "4: RNIC").port(1, "Ethernet", "4: ACTIVE", "5: LinkUp", "100 Gb/sec (4X EDR)");
        tree.softwareRdma("rxe0", "1: CA").port(1, "Ethernet", "4: ACTIVE", "5: LinkUp", "10 Gb/sec (1X QDR)");
        tree.netdev("ib0", "0000:01:00.0", 32, "up", "400000");
        tree.netdev("enp1s0f1", "0000:01:00.1", 1, "down", null);
        SysfsReader reader = new SysfsReader(tree.root());

        RdmaDeviceScanner scanner = new RdmaDeviceScanner(reader);
        assertTrue(scanner.classPresent());
        Map<String, SysfsRdmaDevice> devices = scanner.scan().stream().collect(Collectors.toMap(SysfsRdmaDevice::name, Function.identity()));
        SysfsRdmaDevice ib = devices.get("mlx5_0");
        assertEquals(LinkLayer.INFINIBAND, ib.linkLayer());
        assertEquals(Optional.of(PciAddress.parse("0000:01:00.0")), ib.pci());
        assertTrue(ib.nicPorts().get(0).active());
        assertEquals(400.0, ib.nicPorts().get(0).rateGbps());
        assertEquals("4: ACTIVE", ib.nicPorts().get(0).state());
        assertEquals("5: LinkUp", ib.ports().get(0).physicalState());
        assertEquals(List.of("ib0"), ib.netdevs());

        SysfsRdmaDevice roce = devices.get("mlx5_1");
        assertEquals(LinkLayer.ROCE, roce.linkLayer());
        assertFalse(roce.nicPorts().get(0).active(), "DOWN port");
        assertEquals(List.of("enp1s0f1"), roce.netdevs());

        assertEquals(LinkLayer.IWARP, devices.get("iw_cxgb4").linkLayer());
        assertEquals(LinkLayer.IWARP, devices.get("irdma0").linkLayer());
        assertEquals(LinkLayer.ROCE, devices.get("rxe0").linkLayer(), "soft-RoCE");
        assertEquals(Optional.empty(), devices.get("rxe0").pci(), "software device, no PCI function");
    }

    @Test
    void iwarpByNameOnlyWhenNodeTypeIsMissing()
    {
        assertEquals(LinkLayer.IWARP, RdmaDeviceScanner.linkLayerOf("iw_cxgb4", "", "Ethernet"));
        assertEquals(LinkLayer.IWARP, RdmaDeviceScanner.linkLayerOf("siw_eth0", "", "Ethernet"));
        assertEquals(LinkLayer.ROCE, RdmaDeviceScanner.linkLayerOf("irdma0", "", "Ethernet"), "irdma speaks both; its name decides nothing");
        assertEquals(LinkLayer.ROCE, RdmaDeviceScanner.linkLayerOf("irdma0", "1: CA", "Ethernet"));
        assertEquals(LinkLayer.UNKNOWN, RdmaDeviceScanner.linkLayerOf("mlx5_0", "1: CA", ""));
        assertEquals(100.0, RdmaDeviceScanner.parseRate("100 Gb/sec (4X EDR)"));
        assertEquals(2.5, RdmaDeviceScanner.parseRate("2.5 Gb/sec (1X SDR)"));
        assertEquals(0.0, RdmaDeviceScanner.parseRate("garbage"));
        assertFalse(RdmaDeviceScanner.isActive("5: ACTIVE_DEFER"));
        assertFalse(RdmaDeviceScanner.isActive("2: INIT"));
    }

    @Test
    void noInfinibandClassMeansNoRdmaDevice()
    {
        SysfsTreeBuilder tree = new SysfsTreeBuilder(temp.resolve("sys"));
        RdmaDeviceScanner scanner = new RdmaDeviceScanner(new SysfsReader(tree.root()));
        assertFalse(scanner.classPresent());
        assertTrue(scanner.scan().isEmpty());
    }

    @Test
    void netInterfacesKeepDeviceBackedAndIpoibOnly()
    {
        SysfsTreeBuilder tree = new SysfsTreeBuilder(temp.resolve("sys"));
        tree.pci("pci0000:00/0000:00:01.0/0000:01:00.0", CLASS_INFINIBAND, VENDOR_MELLANOX, 0x101b);
        tree.pci("pci0000:00/0000:00:03.0", CLASS_ETHERNET, VENDOR_INTEL, 0x1592);
        tree.netdev("ib0", "0000:01:00.0", 32, "up", "200000");
        tree.netdev("eth0", "0000:00:03.0", 1, "up", "100000");
        tree.netdev("eth1", "0000:00:03.0", 1, "down", null);
        tree.virtualNetdev("lo", 772, "unknown");
        tree.virtualNetdev("docker0", 1, "down");
        // An IPoIB child interface (pkey) has no device link of its own but is IPoIB
        tree.virtualNetdev("ib0.8001", 32, "up");
        Map<String, NetInterface> interfaces = new NetInterfaceScanner(new SysfsReader(tree.root())).scan().stream()
                .collect(Collectors.toMap(NetInterface::name, Function.identity()));

        assertEquals(List.of("eth0", "eth1", "ib0", "ib0.8001"), interfaces.keySet().stream().sorted().toList());
        NetInterface ib0 = interfaces.get("ib0");
        assertEquals(NetInterface.Kind.IPOIB, ib0.kind());
        assertEquals(Optional.of(PciAddress.parse("0000:01:00.0")), ib0.pci());
        assertEquals(200000, ib0.speedMbps());
        assertTrue(ib0.up());
        assertEquals(NetInterface.Kind.ETHERNET, interfaces.get("eth0").kind());
        assertEquals(-1, interfaces.get("eth1").speedMbps(), "a down link's speed is unknown");
        assertFalse(interfaces.get("eth1").up());
        assertEquals(NetInterface.Kind.IPOIB, interfaces.get("ib0.8001").kind());
        assertEquals(Optional.empty(), interfaces.get("ib0.8001").pci());
    }
}
