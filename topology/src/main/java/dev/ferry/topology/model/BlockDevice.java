package dev.ferry.topology.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * A block device and what it is stacked on: a fact about where a file lives, judged by the route policy.
 *
 * @param name the kernel name, e.g. {@code nvme0n1p2}, {@code dm-0}, {@code md127}, {@code loop3}
 * @param kind what sort of device it is
 * @param detail what the kernel says about it: the device-mapper name ({@code vg0-data}), the md RAID
 *         level, a loop device's backing file; empty otherwise
 * @param slaves the devices it is built from (device-mapper, md and partitions of them)
 * @param nvmeControllers for an NVMe namespace or partition, its controllers ({@code nvme0}; several with native multipath)
 * @param pci the PCI function of the first controller, or of the disk's controller
 * @param transport the first NVMe controller's transport ({@code pcie}, {@code tcp}, {@code rdma}, {@code fc}); empty when unknown or not NVMe
 */
public record BlockDevice(
        String name,
        Kind kind,
        Optional<String> detail,
        List<BlockDevice> slaves,
        List<String> nvmeControllers,
        Optional<PciAddress> pci,
        Optional<String> transport)
{
    public enum Kind
    {
        NVME_NAMESPACE,
        NVME_PARTITION,
        /** {@code dm-N}: LVM, dm-crypt, dm-multipath ... */
        DEVICE_MAPPER,
        /** {@code mdN}: Linux software RAID. */
        MD_RAID,
        LOOP,
        /** Any other disk (SATA, SAS, virtio) or a partition of one, or another stacking driver (bcache, drbd). */
        OTHER_DISK;

        // NVMe names carry a controller part (c1) on the hidden paths of native multipath
        private static final Pattern NVME_NAMESPACE_NAME = Pattern.compile("nvme[0-9]+(c[0-9]+)?n[0-9]+");
        private static final Pattern NVME_PARTITION_NAME = Pattern.compile("nvme[0-9]+(c[0-9]+)?n[0-9]+p[0-9]+");
        private static final Pattern DEVICE_MAPPER_NAME = Pattern.compile("dm-[0-9]+|mapper/.+");
        private static final Pattern MD_NAME = Pattern.compile("md[0-9]+(p[0-9]+)?|md_.+|md/.+");
        private static final Pattern LOOP_NAME = Pattern.compile("loop[0-9]+(p[0-9]+)?");

        /** The kind a kernel device name shows ({@code /dev/} may lead), {@link #OTHER_DISK} when it shows none. */
        public static Kind ofName(String name)
        {
            String bare = name.startsWith("/dev/") ? name.substring("/dev/".length()) : name;
            if (NVME_PARTITION_NAME.matcher(bare).matches()) {
                return NVME_PARTITION;
            }
            if (NVME_NAMESPACE_NAME.matcher(bare).matches()) {
                return NVME_NAMESPACE;
            }
            if (DEVICE_MAPPER_NAME.matcher(bare).matches()) {
                return DEVICE_MAPPER;
            }
            if (MD_NAME.matcher(bare).matches()) {
                return MD_RAID;
            }
            if (LOOP_NAME.matcher(bare).matches()) {
                return LOOP;
            }
            return OTHER_DISK;
        }
    }

    public BlockDevice
    {
        requireNonNull(name, "name is null");
        requireNonNull(kind, "kind is null");
        requireNonNull(detail, "detail is null");
        slaves = List.copyOf(requireNonNull(slaves, "slaves is null"));
        nvmeControllers = List.copyOf(requireNonNull(nvmeControllers, "nvmeControllers is null"));
        requireNonNull(pci, "pci is null");
        requireNonNull(transport, "transport is null");
    }

    /**
     * A stack known only by name, top first, each device built from the next ({@code [dm-0, nvme0n1p2]}):
     * kinds from the names, nothing else known. Empty for an empty list.
     */
    public static Optional<BlockDevice> stackOfNames(List<String> names)
    {
        BlockDevice below = null;
        for (int index = names.size() - 1; index >= 0; index--) {
            String name = names.get(index);
            below = new BlockDevice(name, Kind.ofName(name), Optional.empty(), below == null ? List.of() : List.of(below),
                    List.of(), Optional.empty(), Optional.empty());
        }
        return Optional.ofNullable(below);
    }

    public boolean isNvme()
    {
        return kind == Kind.NVME_NAMESPACE || kind == Kind.NVME_PARTITION;
    }

    /** This device, then its slaves depth-first: the stack from the mounted device down to the disks. */
    public List<BlockDevice> stack()
    {
        List<BlockDevice> stack = new ArrayList<>();
        stack.add(this);
        for (BlockDevice slave : slaves) {
            stack.addAll(slave.stack());
        }
        return List.copyOf(stack);
    }

    /** The bottom devices of the stack (those built from nothing else). */
    public List<BlockDevice> leaves()
    {
        return stack().stream().filter(device -> device.slaves().isEmpty()).toList();
    }
}
