package dev.ferry.topology.probe;

import dev.ferry.topology.model.PciAddress;

import static java.util.Objects.requireNonNull;

/** A device of the node that relations connect: its name in the topology and its PCI function. */
record PciEndpoint(String name, PciAddress pci)
{
    PciEndpoint
    {
        requireNonNull(name, "name is null");
        requireNonNull(pci, "pci is null");
    }
}
