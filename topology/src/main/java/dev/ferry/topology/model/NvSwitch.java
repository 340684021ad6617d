package dev.ferry.topology.model;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** An NVSwitch seen as a PCI device (class 0x068000); VMs usually hide them. */
public record NvSwitch(String name, Optional<PciAddress> pci)
{
    public NvSwitch
    {
        requireNonNull(name, "name is null");
        requireNonNull(pci, "pci is null");
    }
}
