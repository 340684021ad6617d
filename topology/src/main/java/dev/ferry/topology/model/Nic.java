package dev.ferry.topology.model;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

import static java.util.Objects.requireNonNull;

/**
 * An RDMA-capable host channel adapter ({@code /sys/class/infiniband/<name>}).
 *
 * @param name e.g. {@code mlx5_0}
 * @param pci the PCI function, when known
 * @param linkLayer InfiniBand, RoCE, iWARP or unknown
 * @param ports its ports; empty when unknown (e.g. from a capture)
 * @param numaNode when known
 * @param netdevs the network interfaces on top of it, e.g. {@code ib0} or {@code enp12s0}
 */
public record Nic(
        String name,
        Optional<PciAddress> pci,
        LinkLayer linkLayer,
        List<NicPort> ports,
        OptionalInt numaNode,
        List<String> netdevs)
{
    public Nic
    {
        requireNonNull(name, "name is null");
        requireNonNull(pci, "pci is null");
        requireNonNull(linkLayer, "linkLayer is null");
        ports = List.copyOf(requireNonNull(ports, "ports is null"));
        requireNonNull(numaNode, "numaNode is null");
        netdevs = List.copyOf(requireNonNull(netdevs, "netdevs is null"));
    }

    /** A NIC known only by name, as in an {@code nvidia-smi topo -m} column. */
    public static Nic named(String name)
    {
        return new Nic(name, Optional.empty(), LinkLayer.UNKNOWN, List.of(), OptionalInt.empty(), List.of());
    }

    /** Whether any port is active. A NIC with no known ports is not known to be active. */
    public boolean isActive()
    {
        return ports.stream().anyMatch(NicPort::active);
    }

    /** The best rate of an active port in Gb/s, 0 when none is active or the rate is unknown. */
    public double activeRateGbps()
    {
        return ports.stream().filter(NicPort::active).mapToDouble(NicPort::rateGbps).max().orElse(0);
    }

    public Nic withLinkLayer(LinkLayer linkLayer)
    {
        return new Nic(name, pci, linkLayer, ports, numaNode, netdevs);
    }

    public Nic withPorts(List<NicPort> ports)
    {
        return new Nic(name, pci, linkLayer, ports, numaNode, netdevs);
    }
}
