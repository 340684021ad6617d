package dev.ferry.topology.model;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A kernel network interface ({@code /sys/class/net/<name>}).
 *
 * @param name e.g. {@code eth0}, {@code ib0}
 * @param kind Ethernet, IPoIB ({@code type} 32) or other
 * @param speedMbps the link speed in Mb/s; 0 or less when unknown (sysfs says -1)
 * @param pci the PCI function behind it, when it has one
 * @param up whether the interface is operationally up
 */
public record NetInterface(String name, Kind kind, long speedMbps, Optional<PciAddress> pci, boolean up)
{
    public enum Kind
    {
        ETHERNET,
        /** IP over InfiniBand ({@code /sys/class/net/<if>/type} = 32). */
        IPOIB,
        OTHER,
    }

    public NetInterface
    {
        requireNonNull(name, "name is null");
        requireNonNull(kind, "kind is null");
        requireNonNull(pci, "pci is null");
    }
}
