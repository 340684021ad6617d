package dev.ferry.topology.probe.nvml;

import dev.ferry.topology.model.PciAddress;
import dev.ferry.topology.model.PcieLink;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One GPU as NVML describes it. Attributes NVML refused are empty (or unknown links), never guessed.
 *
 * @param index the NVML index
 * @param name the product name
 * @param uuid e.g. {@code GPU-...}
 * @param pci normalised from NVML's 8-digit upper-case bus id
 * @param computeCapability e.g. {@code 9.0}
 * @param maxLink the PCIe capability
 * @param currentLink the negotiated PCIe link (an idle GPU may run below max)
 * @param cpuAffinity the near CPUs as a list, e.g. {@code 0-23,48-71}; empty when unknown
 * @param nvLinks active, P2P-capable NVLinks
 */
public record NvmlGpu(
        int index,
        String name,
        Optional<String> uuid,
        Optional<PciAddress> pci,
        Optional<String> computeCapability,
        PcieLink maxLink,
        PcieLink currentLink,
        String cpuAffinity,
        List<NvmlLink> nvLinks)
{
    public NvmlGpu
    {
        requireNonNull(name, "name is null");
        requireNonNull(uuid, "uuid is null");
        requireNonNull(pci, "pci is null");
        requireNonNull(computeCapability, "computeCapability is null");
        requireNonNull(maxLink, "maxLink is null");
        requireNonNull(currentLink, "currentLink is null");
        requireNonNull(cpuAffinity, "cpuAffinity is null");
        nvLinks = List.copyOf(requireNonNull(nvLinks, "nvLinks is null"));
    }

    /** Links whose far end is an NVSwitch. */
    public List<NvmlLink> switchLinks()
    {
        return nvLinks.stream().filter(link -> link.endpoint() == NvLinkEndpoint.NVSWITCH).toList();
    }

    public int switchLinkCount()
    {
        return switchLinks().size();
    }

    /** Links cabled straight to the GPU at {@code peer}. */
    public List<NvmlLink> directLinks(PciAddress peer)
    {
        return nvLinks.stream()
                .filter(link -> link.endpoint() == NvLinkEndpoint.GPU && link.remote().equals(Optional.of(peer)))
                .toList();
    }

    public int directLinkCount(PciAddress peer)
    {
        return directLinks(peer).size();
    }
}
