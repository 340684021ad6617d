package dev.ferry.topology.probe.nvml;

import dev.ferry.topology.model.PciAddress;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One active, P2P-capable NVLink of a GPU.
 *
 * @param link the link number
 * @param version {@code nvmlNvlinkVersion_t} (1 = NVLink 1.0 ... 7 = 5.0), 0 when NVML would not say
 * @param remote the far end's PCI address; empty when NVML gave none (VMs hide NVSwitches)
 * @param endpoint what the far end is
 */
public record NvmlLink(int link, int version, Optional<PciAddress> remote, NvLinkEndpoint endpoint)
{
    public NvmlLink
    {
        requireNonNull(remote, "remote is null");
        requireNonNull(endpoint, "endpoint is null");
    }
}
