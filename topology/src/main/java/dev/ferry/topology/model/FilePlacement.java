package dev.ferry.topology.model;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Where a file lives, as far as GPUDirect Storage cares: found from the mount table and sysfs.
 *
 * @param path the file or directory asked about
 * @param mountPoint the mount point that holds it, e.g. {@code /raid}
 * @param filesystemType e.g. {@code ext4}, {@code xfs}, {@code nfs}, {@code overlay}
 * @param mountOptions the options as in {@code /proc/self/mounts}, e.g. {@code [rw, relatime, data=ordered]}
 * @param backingDevices the block devices from the mounted source down to the physical one, e.g.
 *         {@code [nvme0n1p1]} for a plain partition or {@code [dm-0, nvme0n1p1]} for LVM; empty when the
 *         filesystem has no block device (tmpfs, NFS, overlay)
 * @param nvmeController the NVMe controller at the bottom of the chain (e.g. {@code nvme0}), when there is one
 */
public record FilePlacement(
        String path,
        String mountPoint,
        String filesystemType,
        List<String> mountOptions,
        List<String> backingDevices,
        Optional<String> nvmeController)
{
    public FilePlacement
    {
        requireNonNull(path, "path is null");
        requireNonNull(mountPoint, "mountPoint is null");
        requireNonNull(filesystemType, "filesystemType is null");
        mountOptions = List.copyOf(requireNonNull(mountOptions, "mountOptions is null"));
        backingDevices = List.copyOf(requireNonNull(backingDevices, "backingDevices is null"));
        requireNonNull(nvmeController, "nvmeController is null");
    }

    /** The value of a {@code key=value} mount option, when present. */
    public Optional<String> mountOption(String key)
    {
        String prefix = key + "=";
        return mountOptions.stream()
                .filter(option -> option.startsWith(prefix))
                .map(option -> option.substring(prefix.length()))
                .findFirst();
    }
}
