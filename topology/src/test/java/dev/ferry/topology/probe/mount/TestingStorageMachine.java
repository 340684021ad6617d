package dev.ferry.topology.probe.mount;

import dev.ferry.topology.probe.SysfsTreeBuilder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static dev.ferry.topology.probe.SysfsTreeBuilder.CLASS_NVME;
import static dev.ferry.topology.probe.SysfsTreeBuilder.VENDOR_INTEL;
import static dev.ferry.topology.probe.SysfsTreeBuilder.VENDOR_SAMSUNG;

/**
 * A machine's storage as sysfs and its mount table show it, with one mount per case the GDS rules tell
 * apart: ext4 and XFS straight on NVMe, LVM on NVMe, {@code data=journal}, NFS, squashfs on a loop
 * device, tmpfs, SATA, NVMe over TCP, md RAID and a native-multipath namespace. Every mount point
 * lives under {@code /ferry-fixture} (the root mount catches any other path).
 */
public final class TestingStorageMachine
{
    public static final String MOUNTINFO = String.join("\n",
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

    private TestingStorageMachine() {}

    /**
     * Builds the sysfs tree under {@code directory/sys} and the mount table at {@code directory/mountinfo}:
     * nvme0 (0000:05:00.0, below root port 00:01.0), nvme1 (06:00.0), nvme3 (07:00.0, multipath), nvme2 over
     * TCP, and a SATA disk on AHCI 00:17.0.
     *
     * @return a probe reading them
     */
    public static FilePlacementProbe build(Path directory)
            throws IOException
    {
        return probe(directory, tree(directory));
    }

    /** A probe of the mount table and of a tree {@link #tree} built (and perhaps added to) under {@code directory}. */
    public static FilePlacementProbe probe(Path directory, SysfsTreeBuilder tree)
            throws IOException
    {
        Path mountInfo = directory.resolve("mountinfo");
        Files.writeString(mountInfo, MOUNTINFO);
        return new FilePlacementProbe(mountInfo, tree.root());
    }

    /** The storage of {@link #build} in a tree under {@code directory/sys}, for a test to add devices to. */
    public static SysfsTreeBuilder tree(Path directory)
    {
        SysfsTreeBuilder tree = new SysfsTreeBuilder(directory.resolve("sys"));
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
        tree.file(tree.root().relativize(dm.resolve("dm/name")).toString(), "vg0-data");
        Path loop = tree.virtualBlock("loop0", "7:0");
        tree.file(tree.root().relativize(loop.resolve("loop/backing_file")).toString(), "/var/lib/snapd/snaps/core.snap");
        tree.virtualBlock("md127", "9:127", nvme1n1);
        Path sda = tree.disk("sda", "0000:00:17.0", "8:0");
        tree.partition(sda, "sda1", "8:1");
        return tree;
    }
}
