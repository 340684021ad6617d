package dev.ferry.topology.probe.mount;

import dev.ferry.topology.model.BlockDevice;
import dev.ferry.topology.model.FilePlacement;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Where a file lives: the model's facts, which the route policy judges
 * ({@link dev.ferry.topology.route.RoutePolicy#gpuToFile}), and the mount table entry they came from.
 *
 * @param placement the facts GPUDirect Storage depends on
 * @param mount the mount table entry holding the file
 */
public record FileLocation(FilePlacement placement, MountEntry mount)
{
    public FileLocation
    {
        requireNonNull(placement, "placement is null");
        requireNonNull(mount, "mount is null");
    }

    /** The block device stack behind the mount, when there is one. */
    public Optional<BlockDevice> device()
    {
        return placement.device();
    }
}
