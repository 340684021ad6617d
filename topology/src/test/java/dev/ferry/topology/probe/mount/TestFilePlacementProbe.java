package dev.ferry.topology.probe.mount;

import dev.ferry.topology.model.BlockDevice;
import dev.ferry.topology.model.FilePlacement;
import dev.ferry.topology.model.PciAddress;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

class TestFilePlacementProbe
{
    // Only read by the tests, so built once
    @TempDir
    static Path machine;

    private static FilePlacementProbe probe;

    @BeforeAll
    static void buildMachine()
            throws IOException
    {
        probe = TestingStorageMachine.build(machine);
    }

    @Test
    void ext4WithoutDataOptionOnAnNvmePartition()
    {
        FileLocation location = probe.locate(Path.of("/ferry-fixture/direct/part-0.parquet"));
        FilePlacement placement = location.placement();
        assertEquals("/ferry-fixture/direct/part-0.parquet", placement.path());
        assertEquals("/", placement.mountPoint());
        assertEquals("/dev/nvme0n1p2", placement.mountSource());
        assertEquals(Optional.of("259:2"), placement.deviceNumber());
        assertEquals("ext4", placement.filesystemType());
        assertEquals(List.of("rw", "relatime", "errors=remount-ro"), placement.mountOptions());
        assertEquals(List.of("nvme0n1p2"), placement.backingDevices());
        assertEquals(Optional.of("nvme0"), placement.nvmeController());
        BlockDevice device = location.device().orElseThrow();
        assertEquals(BlockDevice.Kind.NVME_PARTITION, device.kind());
        assertEquals(Optional.of(PciAddress.parse("0000:05:00.0")), device.pci());
        assertEquals(Optional.of("pcie"), device.transport());
        assertEquals(22, location.mount().mountId());
    }

    @Test
    void xfsOnAWholeNamespaceBehindAnEscapedMountPoint()
    {
        FileLocation location = probe.locate(Path.of("/ferry-fixture/raw data/x.parquet"));
        assertEquals("/ferry-fixture/raw data", location.placement().mountPoint());
        assertEquals(List.of("nvme1n1"), location.placement().backingDevices());
        assertEquals(BlockDevice.Kind.NVME_NAMESPACE, location.device().orElseThrow().kind());
        assertEquals(Optional.of("nvme1"), location.placement().nvmeController());

        FileLocation tmpfs = probe.locate(Path.of("/ferry-fixture/raw/x.parquet"));
        assertEquals("tmpfs", tmpfs.placement().filesystemType());
        assertEquals(Optional.empty(), tmpfs.device());
        assertEquals("tmpfs", tmpfs.placement().mountSource());
        assertEquals(Optional.of("0:30"), tmpfs.placement().deviceNumber());
    }

    @Test
    void lvmOnNvmeIsTracedToTheController()
    {
        FileLocation location = probe.locate(Path.of("/ferry-fixture/lvm/table/x.parquet"));
        assertEquals(List.of("dm-0", "nvme0n1p1"), location.placement().backingDevices());
        assertEquals(Optional.of("nvme0"), location.placement().nvmeController());
        BlockDevice device = location.device().orElseThrow();
        assertEquals(BlockDevice.Kind.DEVICE_MAPPER, device.kind());
        assertEquals(Optional.of("vg0-data"), device.detail());
        assertEquals(BlockDevice.Kind.NVME_PARTITION, device.slaves().get(0).kind());
    }

    @Test
    void everyOtherStackIsDescribed()
    {
        FileLocation journal = probe.locate(Path.of("/ferry-fixture/journal/x"));
        assertEquals(Optional.of("journal"), journal.placement().mountOption("data"));

        FileLocation nfs = probe.locate(Path.of("/ferry-fixture/nfs/x"));
        assertEquals(List.of(), nfs.placement().backingDevices());
        assertEquals("server:/export", nfs.placement().mountSource());
        assertEquals("nfs4", nfs.placement().filesystemType());

        BlockDevice loop = probe.locate(Path.of("/ferry-fixture/loop/x")).device().orElseThrow();
        assertEquals(BlockDevice.Kind.LOOP, loop.kind());
        assertEquals(Optional.of("/var/lib/snapd/snaps/core.snap"), loop.detail());

        FileLocation sata = probe.locate(Path.of("/ferry-fixture/sata/x"));
        assertEquals(List.of("sda1"), sata.placement().backingDevices());
        assertEquals(Optional.empty(), sata.placement().nvmeController());
        assertEquals(BlockDevice.Kind.OTHER_DISK, sata.device().orElseThrow().kind());
        assertEquals(Optional.of(PciAddress.parse("0000:00:17.0")), sata.device().orElseThrow().pci());

        FileLocation fabric = probe.locate(Path.of("/ferry-fixture/fabric/x"));
        assertEquals(Optional.of("nvme2"), fabric.placement().nvmeController());
        assertEquals(Optional.of("tcp"), fabric.device().orElseThrow().transport());
        assertEquals(Optional.empty(), fabric.device().orElseThrow().pci());

        FileLocation raid = probe.locate(Path.of("/ferry-fixture/raid/x"));
        assertEquals(List.of("md127", "nvme1n1"), raid.placement().backingDevices());
        assertEquals(BlockDevice.Kind.MD_RAID, raid.device().orElseThrow().kind());
        assertEquals(Optional.of("nvme1"), raid.placement().nvmeController());
    }

    @Test
    void nativeMultipathNamespacesReachTheirControllerThroughTheSubsystem()
    {
        FileLocation location = probe.locate(Path.of("/ferry-fixture/multipath/x"));
        BlockDevice device = location.device().orElseThrow();
        assertEquals(List.of("nvme3"), device.nvmeControllers());
        assertEquals(Optional.of(PciAddress.parse("0000:07:00.0")), device.pci());
        assertEquals(Optional.of("pcie"), device.transport());
        assertEquals(Optional.of("nvme3"), location.placement().nvmeController());
    }

    @Test
    void blockDeviceKindsComeFromKernelNames()
    {
        assertEquals(BlockDevice.Kind.NVME_NAMESPACE, BlockDevice.Kind.ofName("nvme0n1"));
        assertEquals(BlockDevice.Kind.NVME_NAMESPACE, BlockDevice.Kind.ofName("nvme0c1n1"));
        assertEquals(BlockDevice.Kind.NVME_PARTITION, BlockDevice.Kind.ofName("/dev/nvme10n2p3"));
        assertEquals(BlockDevice.Kind.DEVICE_MAPPER, BlockDevice.Kind.ofName("dm-3"));
        assertEquals(BlockDevice.Kind.DEVICE_MAPPER, BlockDevice.Kind.ofName("/dev/mapper/vg0-data"));
        assertEquals(BlockDevice.Kind.MD_RAID, BlockDevice.Kind.ofName("md127p1"));
        assertEquals(BlockDevice.Kind.LOOP, BlockDevice.Kind.ofName("loop7"));
        assertEquals(BlockDevice.Kind.OTHER_DISK, BlockDevice.Kind.ofName("vda1"));
        assertEquals(List.of("dm-0", "nvme0n1p2"), new FilePlacement("/x", "/", "ext4", List.of(), List.of("dm-0", "nvme0n1p2"), Optional.empty())
                .backingDevices());
    }
}
