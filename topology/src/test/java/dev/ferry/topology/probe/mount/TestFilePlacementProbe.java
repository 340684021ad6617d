package dev.ferry.topology.probe.mount;

import dev.ferry.topology.model.FilePlacement;
import dev.ferry.topology.model.PciAddress;
import dev.ferry.topology.probe.SysfsTreeBuilder;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static dev.ferry.topology.probe.SysfsTreeBuilder.CLASS_NVME;
import static dev.ferry.topology.probe.SysfsTreeBuilder.VENDOR_INTEL;
import static dev.ferry.topology.probe.SysfsTreeBuilder.VENDOR_SAMSUNG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestFilePlacementProbe
{
    private static final String MOUNTINFO = String.join("\n",
            "22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw,errors=remount-ro",
            "30 22 253:0 / /ferry-fixture/lvm rw,relatime shared:2 - xfs /dev/mapper/vg0-data rw,attr2,inode64,noquota",
            "31 22 259:0 / /ferry-fixture/raw\\040data rw,noatime shared:3 - xfs /dev/nvme1n1 rw,attr2",
            "32 22 259:2 / /ferry-fixture/journal rw - ext4 /dev/nvme0n1p2 rw,data=journal",
            "33 22 0:52 / /ferry-fixture/nfs rw,relatime shared:4 - nfs4 server:/export rw,vers=4.2",
            "34 22 7:0 / /ferry-fixture/loop ro - squashfs /dev/loop0 ro",
            "35 22 0:30 / /ferry-fixture/raw rw - tmpfs tmpfs rw",
            "36 22 8:1 / /ferry-fixture/sata rw - ext4 /dev/sda1 rw",
            "37 22 259:5 / /ferry-fixture/fabric rw - xfs /dev/nvme2n1 rw",
            "38 22 9:127 / /ferry-fixture/raid rw - ext4 /dev/md127 rw",
            "39 22 259:7 / /ferry-fixture/multipath rw - xfs /dev/nvme3n1 rw",
            "");

    @TempDir
    Path temp;

    private FilePlacementProbe probe;

    @BeforeEach
    void buildMachine()
            throws IOException
    {
        SysfsTreeBuilder tree = new SysfsTreeBuilder(temp.resolve("sys"));
        tree.bridge("pci0000:00/0000:00:01.0", VENDOR_INTEL);
        tree.pci("pci0000:00/0000:00:01.0/0000:05:00.0", CLASS_NVME, VENDOR_SAMSUNG, 0xa80a);
        tree.pci("pci0000:00/0000:00:02.0", SysfsTreeBuilder.CLASS_BRIDGE, VENDOR_INTEL, 0x1234);
        tree.pci("pci0000:00/0000:00:02.0/0000:06:00.0", CLASS_NVME, VENDOR_SAMSUNG, 0xa80a);
        tree.pci("pci0000:00/0000:00:03.0/0000:07:00.0", CLASS_NVME, VENDOR_SAMSUNG, 0xa80a);
        tree.pci("pci0000:00/0000:00:17.0", 0x010601, VENDOR_INTEL, 0xa352);
        tree.nvmeController("nvme0", "0000:05:00.0", "pcie");
        Path nvme0n1 = tree.nvmeNamespace("nvme0", "nvme0n1", "259:1");
        Path lvmPartition = tree.partition(nvme0n1, "nvme0n1p1", "259:3");
        tree.partition(nvme0n1, "nvme0n1p2", "259:2");
        tree.nvmeController("nvme1", "0000:06:00.0", "pcie");
        Path nvme1n1 = tree.nvmeNamespace("nvme1", "nvme1n1", "259:0");
        tree.fabricsNvmeController("nvme2", "tcp");
        tree.nvmeNamespace("nvme2", "nvme2n1", "259:5");
        tree.nvmeController("nvme3", "0000:07:00.0", "pcie");
        tree.multipathNamespace("nvme-subsys3", "nvme3n1", "259:7", "nvme3");
        Path dm = tree.virtualBlock("dm-0", "253:0", lvmPartition);
        tree.file(temp.resolve("sys").relativize(dm.resolve("dm/name")).toString(), "vg0-data");
        Path loop = tree.virtualBlock("loop0", "7:0");
        tree.file(temp.resolve("sys").relativize(loop.resolve("loop/backing_file")).toString(), "/var/lib/snapd/snaps/core.snap");
        tree.virtualBlock("md127", "9:127", nvme1n1);
        Path sda = tree.disk("sda", "0000:00:17.0", "8:0");
        tree.partition(sda, "sda1", "8:1");
        Path mountInfo = temp.resolve("mountinfo");
        Files.writeString(mountInfo, MOUNTINFO);
        probe = new FilePlacementProbe(mountInfo, tree.root());
    }

    @Test
    void ext4WithoutDataOptionOnAnNvmePartitionIsFitForGds()
    {
        FileLocation location = probe.locate(Path.of("/ferry-fixture/direct/part-0.parquet"));
        FilePlacement placement = location.placement();
        assertEquals("/ferry-fixture/direct/part-0.parquet", placement.path());
        assertEquals("/", placement.mountPoint());
        assertEquals("ext4", placement.filesystemType());
        assertEquals(List.of("rw", "relatime", "errors=remount-ro"), placement.mountOptions());
        assertEquals(List.of("nvme0n1p2"), placement.backingDevices());
        assertEquals(Optional.of("nvme0"), placement.nvmeController());
        BlockDevice device = location.device().orElseThrow();
        assertEquals(BlockDevice.Kind.NVME_PARTITION, device.kind());
        assertEquals(Optional.of(PciAddress.parse("0000:05:00.0")), device.pci());
        assertEquals(Optional.of("pcie"), device.transport());
        assertTrue(location.storageAllowsGds(), location.gdsObstacles().toString());
    }

    @Test
    void xfsOnAWholeNamespaceBehindAnEscapedMountPoint()
    {
        FileLocation location = probe.locate(Path.of("/ferry-fixture/raw data/x.parquet"));
        assertEquals("/ferry-fixture/raw data", location.placement().mountPoint());
        assertEquals(List.of("nvme1n1"), location.placement().backingDevices());
        assertEquals(BlockDevice.Kind.NVME_NAMESPACE, location.device().orElseThrow().kind());
        assertTrue(location.storageAllowsGds(), location.gdsObstacles().toString());

        FileLocation tmpfs = probe.locate(Path.of("/ferry-fixture/raw/x.parquet"));
        assertEquals("tmpfs", tmpfs.placement().filesystemType());
        assertEquals(List.of(
                "filesystem tmpfs on /ferry-fixture/raw is not ext4 or xfs",
                "no block device behind /ferry-fixture/raw (device 0:30, source tmpfs)"), tmpfs.gdsObstacles());
    }

    @Test
    void lvmOnNvmeIsTracedToTheControllerButRuledOut()
    {
        FileLocation location = probe.locate(Path.of("/ferry-fixture/lvm/table/x.parquet"));
        assertEquals(List.of("dm-0", "nvme0n1p1"), location.placement().backingDevices());
        assertEquals(Optional.of("nvme0"), location.placement().nvmeController());
        assertEquals(Optional.of("vg0-data"), location.device().orElseThrow().detail());
        assertEquals(List.of("on dm-0 (vg0-data): device-mapper (LVM, dm-crypt or multipath), not directly on NVMe"), location.gdsObstacles());
    }

    @Test
    void everyOtherObstacleIsNamed()
    {
        assertEquals(List.of("ext4 mounted data=journal; cuFile needs data=ordered"),
                probe.locate(Path.of("/ferry-fixture/journal/x")).gdsObstacles());

        FileLocation nfs = probe.locate(Path.of("/ferry-fixture/nfs/x"));
        assertEquals(List.of(), nfs.placement().backingDevices());
        assertEquals(1, nfs.gdsObstacles().size());
        assertTrue(nfs.gdsObstacles().get(0).startsWith("network or FUSE filesystem nfs4"), nfs.gdsObstacles().toString());

        List<String> loop = probe.locate(Path.of("/ferry-fixture/loop/x")).gdsObstacles();
        assertEquals(List.of(
                "filesystem squashfs on /ferry-fixture/loop is not ext4 or xfs",
                "on loop0 (backed by /var/lib/snapd/snaps/core.snap): loop device, not directly on NVMe"), loop);

        FileLocation sata = probe.locate(Path.of("/ferry-fixture/sata/x"));
        assertEquals(List.of("sda1"), sata.placement().backingDevices());
        assertEquals(Optional.empty(), sata.placement().nvmeController());
        assertEquals(List.of("on sda1, which is not an NVMe namespace"), sata.gdsObstacles());

        FileLocation fabric = probe.locate(Path.of("/ferry-fixture/fabric/x"));
        assertEquals(Optional.of("nvme2"), fabric.placement().nvmeController());
        assertEquals(List.of("on nvme2n1 through nvme2 with transport tcp: not a local PCIe NVMe drive"), fabric.gdsObstacles());

        FileLocation raid = probe.locate(Path.of("/ferry-fixture/raid/x"));
        assertEquals(List.of("md127", "nvme1n1"), raid.placement().backingDevices());
        assertEquals(List.of("on md127: md software RAID, not directly on NVMe"), raid.gdsObstacles());
    }

    @Test
    void nativeMultipathNamespacesReachTheirControllerThroughTheSubsystem()
    {
        FileLocation location = probe.locate(Path.of("/ferry-fixture/multipath/x"));
        BlockDevice device = location.device().orElseThrow();
        assertEquals(List.of("nvme3"), device.nvmeControllers());
        assertEquals(Optional.of(PciAddress.parse("0000:07:00.0")), device.pci());
        assertEquals(Optional.of("nvme3"), location.placement().nvmeController());
        assertFalse(location.gdsObstacles().stream().anyMatch(obstacle -> obstacle.contains("nvme3")), location.gdsObstacles().toString());
    }
}
