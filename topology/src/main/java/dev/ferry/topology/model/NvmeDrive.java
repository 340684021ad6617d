package dev.ferry.topology.model;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

import static java.util.Objects.requireNonNull;

/**
 * An NVMe controller and its namespaces.
 *
 * @param controller e.g. {@code nvme0}; also its device name in relations
 * @param pci the PCI function, when it is a PCIe controller
 * @param transport {@code pcie}, {@code rdma}, {@code tcp}, {@code fc} (from sysfs)
 * @param namespaces block devices, e.g. {@code nvme0n1}
 * @param numaNode when known
 */
public record NvmeDrive(String controller, Optional<PciAddress> pci, String transport, List<String> namespaces, OptionalInt numaNode)
{
    public NvmeDrive
    {
        requireNonNull(controller, "controller is null");
        requireNonNull(pci, "pci is null");
        requireNonNull(transport, "transport is null");
        namespaces = List.copyOf(requireNonNull(namespaces, "namespaces is null"));
        requireNonNull(numaNode, "numaNode is null");
    }

    /** Whether {@code blockDevice} (e.g. {@code nvme0n1} or {@code nvme0n1p2}) lives on this controller. */
    public boolean hasNamespace(String blockDevice)
    {
        for (String namespace : namespaces) {
            if (blockDevice.equals(namespace) || (blockDevice.startsWith(namespace + "p") && blockDevice.substring(namespace.length() + 1).chars().allMatch(Character::isDigit))) {
                return true;
            }
        }
        return false;
    }
}
