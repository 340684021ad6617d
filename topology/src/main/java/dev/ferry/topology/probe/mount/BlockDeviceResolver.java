package dev.ferry.topology.probe.mount;

import dev.ferry.topology.model.PciAddress;
import dev.ferry.topology.probe.sysfs.NvmeScanner;
import dev.ferry.topology.probe.sysfs.SysfsPaths;
import dev.ferry.topology.probe.sysfs.SysfsReader;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * Follows a device number through sysfs: {@code /sys/dev/block/MAJ:MIN} links to the device's
 * directory; a partition's directory sits inside its disk's; device-mapper, md and their partitions
 * list what they are built from in {@code slaves/}; an NVMe namespace leads to its controller and
 * from there to a PCI function.
 */
public final class BlockDeviceResolver
{
    private static final Pattern NVME_NAMESPACE = Pattern.compile("nvme[0-9]+n[0-9]+");
    private static final Pattern NVME_PARTITION = Pattern.compile("nvme[0-9]+n[0-9]+p[0-9]+");
    private static final Pattern DEVICE_MAPPER = Pattern.compile("dm-[0-9]+");
    private static final Pattern MD = Pattern.compile("md[0-9]+(p[0-9]+)?|md_.*");
    private static final Pattern LOOP = Pattern.compile("loop[0-9]+(p[0-9]+)?");
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
        if (NVME_NAMESPACE.matcher(name).matches() || NVME_PARTITION.matcher(name).matches()) {
            List<String> controllers = NvmeScanner.controllersOf(directory);
            Optional<String> first = controllers.stream().findFirst();
            Optional<PciAddress> pci = first.flatMap(controller -> SysfsReader.realPath(sysfs.path("class/nvme/" + controller + "/device")))
                    .flatMap(SysfsPaths::lastFunction);
            Optional<String> transport = first.flatMap(controller -> SysfsReader.read(sysfs.path("class/nvme/" + controller + "/transport")));
            BlockDevice.Kind kind = NVME_PARTITION.matcher(name).matches() ? BlockDevice.Kind.NVME_PARTITION : BlockDevice.Kind.NVME_NAMESPACE;
            return new BlockDevice(name, kind, Optional.empty(), slaves, controllers, pci, transport);
        }
        if (DEVICE_MAPPER.matcher(diskName).matches()) {
            return new BlockDevice(name, BlockDevice.Kind.DEVICE_MAPPER, SysfsReader.read(disk.resolve("dm/name")), slaves, List.of(), Optional.empty(), Optional.empty());
        }
        if (MD.matcher(diskName).matches()) {
            return new BlockDevice(name, BlockDevice.Kind.MD_RAID, SysfsReader.read(disk.resolve("md/level")), slaves, List.of(), Optional.empty(), Optional.empty());
        }
        if (LOOP.matcher(diskName).matches()) {
            return new BlockDevice(name, BlockDevice.Kind.LOOP, SysfsReader.read(disk.resolve("loop/backing_file")), slaves, List.of(), Optional.empty(), Optional.empty());
        }
        return new BlockDevice(name, BlockDevice.Kind.OTHER_DISK, Optional.empty(), slaves, List.of(), SysfsPaths.lastFunction(disk), Optional.empty());
    }
}
