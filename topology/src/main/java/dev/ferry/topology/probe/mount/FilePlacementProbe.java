package dev.ferry.topology.probe.mount;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.topology.model.BlockDevice;
import dev.ferry.topology.model.FilePlacement;
import dev.ferry.topology.probe.sysfs.SysfsReader;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Finds the filesystem, mount options and block device stack behind a file, down to the NVMe controller
 * when there is one: the facts GPUDirect Storage depends on. It gathers facts only; whether cuFile can
 * read the file directly is the route policy's to judge ({@link dev.ferry.topology.route.RoutePolicy#gpuToFile}).
 */
public final class FilePlacementProbe
{
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
        Optional<String> controller = device.flatMap(value -> value.leaves().stream()
                .filter(BlockDevice::isNvme)
                .flatMap(leaf -> leaf.nvmeControllers().stream())
                .findFirst());
        FilePlacement placement = new FilePlacement(path.toString(), mount.mountPoint(), mount.source(), Optional.of(mount.deviceNumber()),
                mount.filesystemType(), mount.allOptions(), device, controller);
        return new FileLocation(placement, mount);
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
