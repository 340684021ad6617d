package dev.ferry.topology.model;

import dev.ferry.common.FerryException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestModel
{
    @Test
    void pciAddressSpellingsAgree()
    {
        PciAddress sysfs = PciAddress.parse("0000:07:00.0");
        assertEquals(sysfs, PciAddress.parse("00000000:07:00.0"));
        assertEquals(sysfs, PciAddress.parse("07:00.0"));
        assertEquals("0000:07:00.0", sysfs.toString());
        assertEquals("0001:a3:1f.7", PciAddress.parse("00000001:A3:1F.7").toString());
        assertTrue(PciAddress.parse("0000:07:00.0").compareTo(PciAddress.parse("0000:07:00.1")) < 0);
        assertTrue(PciAddress.parse("0000:ff:00.0").compareTo(PciAddress.parse("0001:00:00.0")) < 0);
        assertThrows(FerryException.class, () -> PciAddress.parse("0000:07:00"));
        assertThrows(FerryException.class, () -> PciAddress.parse("0000:07:20.0"));
        assertThrows(FerryException.class, () -> PciAddress.parse("GPU0"));
    }

    @Test
    void pathClassCellsAndNcclOrder()
    {
        assertEquals(PathClass.SYS, PathClass.parseCell("SOC"));
        assertEquals(PathClass.NVLINK, PathClass.parseCell("NV12"));
        assertEquals(12, PathClass.nvlinkCount("NV12"));
        assertEquals(PathClass.SELF, PathClass.parseCell(" X "));
        assertThrows(FerryException.class, () -> PathClass.parseCell("NV"));
        assertThrows(FerryException.class, () -> PathClass.parseCell("NVX"));
        assertThrows(FerryException.class, () -> PathClass.parseCell("PIXX"));
        assertTrue(PathClass.NODE.isWithin(PathClass.PHB), "NCCL has no NODE: it is PHB");
        assertTrue(PathClass.PHB.isWithin(PathClass.NODE));
        assertFalse(PathClass.NODE.isWithin(PathClass.PXB));
        assertTrue(PathClass.NVLINK.isWithin(PathClass.PXB));
        assertFalse(PathClass.SYS.isWithin(PathClass.PHB));
        assertEquals(PathClass.NVLINK, PathClass.parseLevel("NVL"));
        assertEquals(PathClass.SELF, PathClass.parseLevel("LOC"));
    }

    @Test
    void nodeTopologyValidatesAndLooksUpSymmetrically()
    {
        NodeTopology node = NodeTopology.builder("h")
                .gpu(Gpu.of(0))
                .gpu(Gpu.of(1))
                .relation(Relation.pcie("GPU1", "GPU0", PathClass.PXB, "sysfs"))
                .relation(Relation.nvlink("GPU0", "GPU1", 4, "nvml"))
                .build();
        assertEquals(1, node.relations().size(), "a later relation for a pair replaces the earlier one");
        assertEquals("NV4", node.relation("GPU1", "GPU0").orElseThrow().cell());
        assertEquals(PathClass.SELF, node.relation("GPU0", "GPU0").orElseThrow().pathClass());
        assertTrue(node.relation("GPU0", "nvme0").isEmpty());
        assertThrows(IllegalArgumentException.class, () -> NodeTopology.builder("h").gpu(Gpu.of(0))
                .relation(Relation.pcie("GPU0", "mlx5_0", PathClass.PIX, "file")).build());
        assertThrows(IllegalArgumentException.class, () -> NodeTopology.builder("h").gpu(Gpu.of(0)).gpu(Gpu.of(0)).build());
        assertThrows(IllegalArgumentException.class, () -> NodeTopology.builder("h").gpu(Gpu.of(0))
                .nic(Nic.named("GPU0")).build());
        assertThrows(IllegalArgumentException.class, () -> Relation.pcie("GPU0", "GPU1", PathClass.NVLINK, "x"));
        assertThrows(IllegalArgumentException.class, () -> Gpu.builder(0).computeCapability("sm90").build());
        assertEquals(OptionalInt.of(90), Gpu.builder(0).computeCapability("9.0").build().smVersion());
    }

    @Test
    void nicActivityAndNamespaces()
    {
        Nic nic = new Nic("mlx5_0", Optional.empty(), LinkLayer.ROCE,
                List.of(new NicPort(1, "1: DOWN", false, 100), new NicPort(2, "4: ACTIVE", true, 200)), OptionalInt.empty(), List.of());
        assertTrue(nic.isActive());
        assertEquals(200, nic.activeRateGbps(), 1e-9);
        assertFalse(Nic.named("mlx5_1").isActive());
        NvmeDrive drive = new NvmeDrive("nvme0", Optional.empty(), "pcie", List.of("nvme0n1"), OptionalInt.empty());
        assertTrue(drive.hasNamespace("nvme0n1p3"));
        assertFalse(drive.hasNamespace("nvme0n10"));
        assertEquals(new PcieLink(4, 16), PcieLink.fromSpeed(16.0, 16));
        assertFalse(PcieLink.fromSpeed(3.0, 16).isKnown());
    }
}
