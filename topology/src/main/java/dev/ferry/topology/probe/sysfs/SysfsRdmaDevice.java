package dev.ferry.topology.probe.sysfs;

import dev.ferry.topology.model.LinkLayer;
import dev.ferry.topology.model.NicPort;
import dev.ferry.topology.model.PciAddress;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One RDMA device from {@code /sys/class/infiniband/<name>}.
 *
 * @param name e.g. {@code mlx5_0}
 * @param pci the PCI function behind {@code device}; empty for software devices (rxe, siw)
 * @param nodeType e.g. {@code 1: CA}, {@code 4: RNIC}; empty when unreadable
 * @param ports its ports in order
 * @param netdevs interfaces under {@code device/net}, e.g. {@code ib0}
 */
public record SysfsRdmaDevice(String name, Optional<PciAddress> pci, String nodeType, List<SysfsRdmaPort> ports, List<String> netdevs)
{
    public SysfsRdmaDevice
    {
        requireNonNull(name, "name is null");
        requireNonNull(pci, "pci is null");
        requireNonNull(nodeType, "nodeType is null");
        ports = List.copyOf(requireNonNull(ports, "ports is null"));
        netdevs = List.copyOf(requireNonNull(netdevs, "netdevs is null"));
    }

    /**
     * The device's link layer: that of its first active port, else of its first port. A VPI card can
     * run one port as InfiniBand and another as Ethernet; the active one is what traffic will use.
     */
    public LinkLayer linkLayer()
    {
        return ports.stream()
                .filter(port -> port.port().active())
                .map(SysfsRdmaPort::linkLayer)
                .findFirst()
                .orElse(ports.isEmpty() ? LinkLayer.UNKNOWN : ports.get(0).linkLayer());
    }

    public List<NicPort> nicPorts()
    {
        return ports.stream().map(SysfsRdmaPort::port).toList();
    }
}
