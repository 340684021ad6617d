package dev.ferry.topology.model;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Where a file lives, as far as GPUDirect Storage cares: facts found from the mount table and sysfs
 * (or stated), without a verdict. The route policy's file rule judges them.
 *
 * @param path the file or directory asked about
 * @param mountPoint the mount point that holds it, e.g. {@code /raid}
 * @param mountSource what is mounted there, e.g. {@code /dev/nvme0n1p1}, {@code server:/export}, {@code tmpfs}
 * @param deviceNumber the filesystem's device number as {@code major:minor} (e.g. {@code 259:1}), when known
 * @param filesystemType e.g. {@code ext4}, {@code xfs}, {@code nfs}, {@code overlay}
 * @param mountOptions the options as in {@code /proc/self/mounts}, e.g. {@code [rw, relatime, data=ordered]}
 * @param device the block device stack behind the mount, from the mounted device down to the disks; empty
 *         when the filesystem has no block device (tmpfs, NFS, overlay)
 * @param nvmeController the NVMe controller at the bottom of the stack (e.g. {@code nvme0}), when there is one
 */
public record FilePlacement(
        String path,
        String mountPoint,
        String mountSource,
        Optional<String> deviceNumber,
        String filesystemType,
        List<String> mountOptions,
        Optional<BlockDevice> device,
        Optional<String> nvmeController)
{
    public FilePlacement
    {
        requireNonNull(path, "path is null");
        requireNonNull(mountPoint, "mountPoint is null");
        requireNonNull(mountSource, "mountSource is null");
        requireNonNull(deviceNumber, "deviceNumber is null");
        requireNonNull(filesystemType, "filesystemType is null");
        mountOptions = List.copyOf(requireNonNull(mountOptions, "mountOptions is null"));
        requireNonNull(device, "device is null");
        requireNonNull(nvmeController, "nvmeController is null");
    }

    /**
     * A placement stated rather than probed: the backing devices by name, top first, each built from the
     * next (e.g. {@code [dm-0, nvme0n1p1]} for LVM), their kinds read from the names.
     */
    public FilePlacement(String path, String mountPoint, String filesystemType, List<String> mountOptions, List<String> backingDevices,
            Optional<String> nvmeController)
    {
        this(path, mountPoint, backingDevices.isEmpty() ? "none" : devicePath(backingDevices.get(0)), Optional.empty(), filesystemType,
                mountOptions, BlockDevice.stackOfNames(backingDevices), nvmeController);
    }

    /** The block devices from the mounted one down to the disks, e.g. {@code [dm-0, nvme0n1p1]}; empty without a block device. */
    public List<String> backingDevices()
    {
        return device.map(value -> value.stack().stream().map(BlockDevice::name).toList()).orElse(List.of());
    }

    /** One line, e.g. {@code ext4 on / (rw,relatime) from /dev/vda, device 254:0; block devices vda; no NVMe controller}. */
    public String describe()
    {
        return filesystemType + " on " + mountPoint + " (" + String.join(",", mountOptions) + ") from " + mountSource
                + deviceNumber.map(number -> ", device " + number).orElse("")
                + (device.isEmpty() ? "; no block device" : "; block devices " + String.join(" -> ", backingDevices()))
                + nvmeController.map(controller -> "; NVMe controller " + controller).orElse("; no NVMe controller");
    }

    /** The value of a {@code key=value} mount option, when present. */
    public Optional<String> mountOption(String key)
    {
        return optionValue(mountOptions, key);
    }

    /** The value of the first {@code key=value} option in {@code options}, when present. */
    public static Optional<String> optionValue(List<String> options, String key)
    {
        String prefix = key + "=";
        return options.stream()
                .filter(option -> option.startsWith(prefix))
                .map(option -> option.substring(prefix.length()))
                .findFirst();
    }

    private static String devicePath(String name)
    {
        return name.startsWith("/") ? name : "/dev/" + name;
    }
}
