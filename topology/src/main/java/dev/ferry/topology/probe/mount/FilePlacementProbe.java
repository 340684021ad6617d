package dev.ferry.topology.probe.mount;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.topology.model.FilePlacement;
import dev.ferry.topology.probe.sysfs.SysfsReader;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * Finds the filesystem, mount options and NVMe device behind a file, and what about them stands in the
 * way of GPUDirect Storage: cuFile reads directly only from ext4 mounted {@code data=ordered} (the
 * default when no {@code data=} option shows) or XFS, sitting directly on a local PCIe NVMe namespace
 * or partition: no device-mapper (LVM, dm-crypt), md RAID or loop device in between. Network and
 * distributed filesystems (NFS, Lustre, GPFS, BeeGFS, WekaFS) have GDS paths of their own that Ferry
 * does not use.
 */
public final class FilePlacementProbe
{
    private static final Set<String> DIRECT_FILESYSTEMS = Set.of("ext4", "xfs");
    private static final Set<String> NETWORK_FILESYSTEMS = Set.of(
            "nfs", "nfs4", "cifs", "smb3", "smbfs", "lustre", "gpfs", "beegfs", "wekafs", "ceph", "glusterfs", "9p", "virtiofs", "afs");

    private final Path mountInfo;
    private final SysfsReader sysfs;

    /**
     * @param mountInfo e.g. {@code /proc/self/mountinfo}
     * @param sysfsRoot e.g. {@code /sys}
     */
    public FilePlacementProbe(Path mountInfo, Path sysfsRoot)
    {
        this.mountInfo = requireNonNull(mountInfo, "mountInfo is null");
        this.sysfs = new SysfsReader(requireNonNull(sysfsRoot, "sysfsRoot is null"));
    }

    /** This machine's mount table and sysfs. */
    public static FilePlacementProbe localMachine()
    {
        return new FilePlacementProbe(Path.of("/proc/self/mountinfo"), Path.of("/sys"));
    }

    /**
     * Locates {@code file} (which need not exist yet; symlinks in the existing part are followed).
     *
     * @throws FerryException {@code EXTERNAL} when the mount table cannot be read, {@code USER_ERROR} when it is malformed
     */
    public FileLocation locate(Path file)
    {
        requireNonNull(file, "file is null");
        Path path = canonical(file);
        MountTable table = new MountTable(MountInfoParser.parse(readMountInfo()));
        MountEntry mount = table.find(path)
                .orElseThrow(() -> new FerryException(ErrorCategory.EXTERNAL, "No mount in " + mountInfo + " holds " + path));
        Optional<BlockDevice> device = new BlockDeviceResolver(sysfs).resolve(mount.major(), mount.minor());
        List<String> backing = device.map(value -> value.stack().stream().map(BlockDevice::name).toList()).orElse(List.of());
        Optional<String> controller = device.flatMap(value -> value.leaves().stream()
                .filter(BlockDevice::isNvme)
                .flatMap(leaf -> leaf.nvmeControllers().stream())
                .findFirst());
        FilePlacement placement = new FilePlacement(path.toString(), mount.mountPoint(), mount.filesystemType(), mount.allOptions(), backing, controller);
        return new FileLocation(placement, mount, device, obstacles(mount, device));
    }

    static List<String> obstacles(MountEntry mount, Optional<BlockDevice> device)
    {
        List<String> obstacles = new ArrayList<>();
        String type = mount.filesystemType().toLowerCase(Locale.ROOT);
        if (NETWORK_FILESYSTEMS.contains(type) || type.startsWith("nfs") || type.startsWith("fuse")) {
            obstacles.add("network or FUSE filesystem " + mount.filesystemType() + " on " + mount.mountPoint()
                    + ": Ferry uses GDS only for ext4/XFS on local NVMe");
            return obstacles;
        }
        if (!DIRECT_FILESYSTEMS.contains(type)) {
            obstacles.add("filesystem " + mount.filesystemType() + " on " + mount.mountPoint() + " is not ext4 or xfs");
        }
        if (type.equals("ext4")) {
            // data=ordered is the default and does not appear in mountinfo
            String data = mount.option("data").orElse("ordered");
            if (!data.equals("ordered")) {
                obstacles.add("ext4 mounted data=" + data + "; cuFile needs data=ordered");
            }
        }
        if (device.isEmpty()) {
            obstacles.add("no block device behind " + mount.mountPoint() + " (device " + mount.deviceNumber() + ", source " + mount.source() + ")");
            return obstacles;
        }
        for (BlockDevice layer : device.get().stack()) {
            switch (layer.kind()) {
                case DEVICE_MAPPER:
                    obstacles.add("on " + layer.name() + layer.detail().map(name -> " (" + name + ")").orElse("")
                            + ": device-mapper (LVM, dm-crypt or multipath), not directly on NVMe");
                    break;
                case MD_RAID:
                    obstacles.add("on " + layer.name() + ": md software RAID, not directly on NVMe");
                    break;
                case LOOP:
                    obstacles.add("on " + layer.name() + layer.detail().map(file -> " (backed by " + file + ")").orElse("") + ": loop device, not directly on NVMe");
                    break;
                case OTHER_DISK:
                    if (layer.slaves().isEmpty()) {
                        obstacles.add("on " + layer.name() + ", which is not an NVMe namespace");
                    }
                    break;
                case NVME_NAMESPACE:
                case NVME_PARTITION:
                    String transport = layer.transport().orElse("unknown");
                    if (!transport.equals("pcie")) {
                        obstacles.add("on " + layer.name() + " through " + String.join("/", layer.nvmeControllers()) + " with transport " + transport
                                + ": not a local PCIe NVMe drive");
                    }
                    break;
            }
        }
        return obstacles;
    }

    private String readMountInfo()
    {
        try {
            return Files.readString(mountInfo, StandardCharsets.UTF_8);
        }
        catch (IOException e) {
            throw new FerryException(ErrorCategory.EXTERNAL, "Cannot read the mount table " + mountInfo + ": " + e.getMessage(), e);
        }
    }

    private static Path canonical(Path file)
    {
        Path absolute = file.toAbsolutePath().normalize();
        // Follow symlinks in the part that exists; the rest (a file not yet written) is taken as is
        Path existing = absolute;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return absolute;
        }
        try {
            return existing.toRealPath().resolve(existing.relativize(absolute));
        }
        catch (IOException e) {
            return absolute;
        }
    }
}
