package dev.ferry.topology.probe.sysfs;

import dev.ferry.topology.model.LinkLayer;
import dev.ferry.topology.model.NicPort;

import static java.util.Objects.requireNonNull;

/**
 * One port of an RDMA device.
 *
 * @param port number, state, whether active, and rate
 * @param linkLayer the transport, after telling iWARP from RoCE
 * @param rawLinkLayer the {@code link_layer} text as read ({@code InfiniBand}, {@code Ethernet}, or empty)
 * @param physicalState e.g. {@code 5: LinkUp}, {@code 3: Disabled}
 */
public record SysfsRdmaPort(NicPort port, LinkLayer linkLayer, String rawLinkLayer, String physicalState)
{
    public SysfsRdmaPort
    {
        requireNonNull(port, "port is null");
        requireNonNull(linkLayer, "linkLayer is null");
        requireNonNull(rawLinkLayer, "rawLinkLayer is null");
        requireNonNull(physicalState, "physicalState is null");
    }
}
