package dev.ferry.topology.probe.mount;

import dev.ferry.topology.model.BlockDevice;
import dev.ferry.topology.model.PciAddress;
import dev.ferry.topology.probe.sysfs.NvmeScanner;
import dev.ferry.topology.probe.sysfs.SysfsPaths;
import dev.ferry.topology.probe.sysfs.SysfsReader;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Follows a device number through sysfs: {@code /sys/dev/block/MAJ:MIN} links to the device's
 * directory; a partition's directory sits inside its disk's; device-mapper, md and their partitions
 * list what they are built from in {@code slaves/}; an NVMe namespace leads to its controller and
 * from there to a PCI function.
 */
public final class BlockDeviceResolver
{
    // Stacks deeper than this are a cycle in a broken tree, not a real machine
    private static final int MAX_DEPTH = 16;

    private final SysfsReader sysfs;

    public BlockDeviceResolver(SysfsReader sysfs)
    {
        this.sysfs = requireNonNull(sysfs, "sysfs is null");
    }

    /** The device behind a device number, empty when sysfs has no block device of that number (tmpfs, NFS, btrfs subvolumes). */
    public Optional<BlockDevice> resolve(int major, int minor)
    {
        return SysfsReader.realPath(sysfs.path("dev/block/" + major + ":" + minor)).map(directory -> resolve(directory, 0));
    }

    private BlockDevice resolve(Path directory, int depth)
    {
        String name = directory.getFileName().toString();
        boolean partition = SysfsReader.exists(directory.resolve("partition"));
        // A partition's slaves and identity are those of the disk that holds it
        Path disk = partition && directory.getParent() != null ? directory.getParent() : directory;
        String diskName = disk.getFileName().toString();
        List<BlockDevice> slaves = new ArrayList<>();
        if (depth < MAX_DEPTH) {
            for (String slave : SysfsReader.list(disk.resolve("slaves"))) {
                SysfsReader.realPath(disk.resolve("slaves").resolve(slave)).ifPresent(path -> slaves.add(resolve(path, depth + 1)));
            }
        }
        BlockDevice.Kind kind = BlockDevice.Kind.ofName(name);
        if (kind == BlockDevice.Kind.OTHER_DISK) {
            kind = BlockDevice.Kind.ofName(diskName);
        }
        switch (kind) {
            case NVME_NAMESPACE:
            case NVME_PARTITION:
                List<String> controllers = NvmeScanner.controllersOf(directory);
                Optional<String> first = controllers.stream().findFirst();
                Optional<PciAddress> pci = first.flatMap(controller -> SysfsReader.realPath(sysfs.path("class/nvme/" + controller + "/device")))
                        .flatMap(SysfsPaths::lastFunction);
                Optional<String> transport = first.flatMap(controller -> SysfsReader.read(sysfs.path("class/nvme/" + controller + "/transport")));
                return new BlockDevice(name, kind, Optional.empty(), slaves, controllers, pci, transport);
            case DEVICE_MAPPER:
                return virtual(name, kind, SysfsReader.read(disk.resolve("dm/name")), slaves);
            case MD_RAID:
                return virtual(name, kind, SysfsReader.read(disk.resolve("md/level")), slaves);
            case LOOP:
                return virtual(name, kind, SysfsReader.read(disk.resolve("loop/backing_file")), slaves);
            case OTHER_DISK:
                return new BlockDevice(name, kind, Optional.empty(), slaves, List.of(), SysfsPaths.lastFunction(disk), Optional.empty());
        }
        throw new IllegalStateException("Unhandled block device kind " + kind);
    }

    private static BlockDevice virtual(String name, BlockDevice.Kind kind, Optional<String> detail, List<BlockDevice> slaves)
    {
        return new BlockDevice(name, kind, detail, slaves, List.of(), Optional.empty(), Optional.empty());
    }
}
