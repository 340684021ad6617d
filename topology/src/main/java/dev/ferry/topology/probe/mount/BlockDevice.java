package dev.ferry.topology.probe.mount;

import dev.ferry.topology.model.PciAddress;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A block device and what it is stacked on.
 *
 * @param name the kernel name, e.g. {@code nvme0n1p2}, {@code dm-0}, {@code md127}, {@code loop3}
 * @param kind what sort of device it is
 * @param detail what the kernel says about it: the device-mapper name ({@code vg0-data}), a loop
 *         device's backing file; empty otherwise
 * @param slaves the devices it is built from (device-mapper, md and partitions of them)
 * @param nvmeControllers for an NVMe namespace or partition, its controllers ({@code nvme0}; several with native multipath)
 * @param pci the PCI function of the first controller
 * @param transport the first controller's transport ({@code pcie}, {@code tcp}, {@code rdma}, {@code fc})
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
        /** Any other disk (SATA, SAS, virtio) or a partition of one. */
        OTHER_DISK,
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
