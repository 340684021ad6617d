package dev.ferry.topology.probe.mount;

import dev.ferry.topology.model.FilePlacement;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * One line of {@code /proc/<pid>/mountinfo} (see proc(5)), with octal escapes undone.
 *
 * @param mountId unique id of the mount
 * @param parentId id of the parent mount
 * @param major major number of the device in {@code st_dev} (0 for tmpfs, NFS, btrfs subvolumes ...)
 * @param minor minor number
 * @param root the directory of the filesystem that forms the root of this mount (not {@code /} for bind mounts)
 * @param mountPoint where it is mounted
 * @param mountOptions per-mount options, e.g. {@code rw}, {@code relatime}
 * @param optionalFields e.g. {@code shared:1}, {@code master:2}
 * @param filesystemType e.g. {@code ext4}, {@code nfs4}, {@code fuse.sshfs}
 * @param source e.g. {@code /dev/nvme0n1p1}, {@code server:/export}, or {@code none}
 * @param superOptions per-superblock options, e.g. {@code errors=remount-ro}, {@code data=journal}
 */
public record MountEntry(
        int mountId,
        int parentId,
        int major,
        int minor,
        String root,
        String mountPoint,
        List<String> mountOptions,
        List<String> optionalFields,
        String filesystemType,
        String source,
        List<String> superOptions)
{
    public MountEntry
    {
        requireNonNull(root, "root is null");
        requireNonNull(mountPoint, "mountPoint is null");
        mountOptions = List.copyOf(requireNonNull(mountOptions, "mountOptions is null"));
        optionalFields = List.copyOf(requireNonNull(optionalFields, "optionalFields is null"));
        requireNonNull(filesystemType, "filesystemType is null");
        requireNonNull(source, "source is null");
        superOptions = List.copyOf(requireNonNull(superOptions, "superOptions is null"));
    }

    /** Mount options then superblock options, without repeats, as {@code /proc/mounts} shows them. */
    public List<String> allOptions()
    {
        Set<String> options = new LinkedHashSet<>(mountOptions);
        options.addAll(superOptions);
        return List.copyOf(options);
    }

    /** The value of a {@code key=value} option from either list. */
    public Optional<String> option(String key)
    {
        return FilePlacement.optionValue(allOptions(), key);
    }

    /** The device number as {@code /sys/dev/block} names it, e.g. {@code 259:1}. */
    public String deviceNumber()
    {
        return major + ":" + minor;
    }
}
