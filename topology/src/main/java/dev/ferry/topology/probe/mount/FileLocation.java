package dev.ferry.topology.probe.mount;

import dev.ferry.topology.model.FilePlacement;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Where a file lives, with the storage-side facts GPUDirect Storage depends on.
 *
 * @param placement the model's view, which the route policy decides on
 * @param mount the mount table entry holding the file
 * @param device the block device stack behind the mount, when there is one
 * @param gdsObstacles why the storage side rules out true direct I/O, empty when it does not; the
 *         GPU side (driver, {@code nvidia_fs}, PCIe distance) is the route policy's to judge
 */
public record FileLocation(FilePlacement placement, MountEntry mount, Optional<BlockDevice> device, List<String> gdsObstacles)
{
    public FileLocation
    {
        requireNonNull(placement, "placement is null");
        requireNonNull(mount, "mount is null");
        requireNonNull(device, "device is null");
        gdsObstacles = List.copyOf(requireNonNull(gdsObstacles, "gdsObstacles is null"));
    }

    /** Whether the filesystem, its mount options and the block stack allow cuFile direct I/O. */
    public boolean storageAllowsGds()
    {
        return gdsObstacles.isEmpty();
    }
}
