package dev.ferry.topology.probe.sysfs;

import dev.ferry.topology.model.PciAddress;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

import static java.util.Objects.requireNonNull;

/**
 * One PCI function as sysfs shows it.
 *
 * @param address the function's address
 * @param rootComplex the host bridge it hangs off, as the kernel names it ({@code pci0000:00}); in VMs
 *         this may be a Hyper-V style {@code pci7870:00}; never empty
 * @param chain the PCI functions from the root port down to this function, inclusive, read from the
 *         resolved {@code /sys/devices/pciDDDD:BB/...} path; one element when it sits directly on the
 *         root bus (common in VMs)
 * @param classCode the 24-bit class code, -1 when unreadable
 * @param vendor the vendor id, -1 when unreadable
 * @param deviceId the device id, -1 when unreadable
 * @param subsystemVendor the subsystem vendor id, -1 when unreadable
 * @param subsystemDevice the subsystem device id, -1 when unreadable
 * @param link its link towards the parent port
 * @param numaNode the NUMA node, empty when the kernel says -1 (unknown or a single-node machine)
 * @param iommuGroup the IOMMU group number, empty without an IOMMU
 * @param driver the bound driver's name
 */
public record SysfsPciDevice(
        PciAddress address,
        String rootComplex,
        List<PciAddress> chain,
        int classCode,
        int vendor,
        int deviceId,
        int subsystemVendor,
        int subsystemDevice,
        PcieLinkReading link,
        OptionalInt numaNode,
        Optional<String> iommuGroup,
        Optional<String> driver)
{
    public SysfsPciDevice
    {
        requireNonNull(address, "address is null");
        requireNonNull(rootComplex, "rootComplex is null");
        chain = List.copyOf(requireNonNull(chain, "chain is null"));
        requireNonNull(link, "link is null");
        requireNonNull(numaNode, "numaNode is null");
        requireNonNull(iommuGroup, "iommuGroup is null");
        requireNonNull(driver, "driver is null");
        if (chain.isEmpty() || !chain.get(chain.size() - 1).equals(address)) {
            throw new IllegalArgumentException("PCI chain of " + address + " must end with the device itself: " + chain);
        }
    }

    public PciDeviceKind kind()
    {
        return PciDeviceKind.ofClass(classCode);
    }

    /** A GPU made by NVIDIA; a BMC's VGA function (e.g. ASPEED) is a GPU by class but not this. */
    public boolean isNvidiaGpu()
    {
        return kind() == PciDeviceKind.GPU && vendor == PciDeviceKind.NVIDIA_VENDOR;
    }

    /** The class code as sysfs spells it, e.g. {@code 0x030200}. */
    public String classText()
    {
        return classCode < 0 ? "unknown" : String.format("0x%06x", classCode);
    }
}
