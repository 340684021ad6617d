package dev.ferry.shuffle.transport.rdma.verbs;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import dev.ferry.topology.model.Nic;

import static java.util.Objects.requireNonNull;

/**
 * The IPv4 address a real NIC is opened by. RDMA CM finds a device by one of its addresses (a
 * wildcard finds none), and the topology names the NIC and its network interfaces ({@code ib0} for
 * IPoIB, the Ethernet device of a RoCE port), not an address: so the address is
 * {@code spark.ferry.transport.rdma.address} when set, else the first IPv4 address of the first of
 * the NIC's interfaces that has one. Either way the reason says where it came from.
 */
public final class NicAddresses
{
    private NicAddresses() {}

    /** The address to open {@code nic} by, or empty with the reason in {@link Resolved#reason()}. */
    public record Resolved(Optional<Inet4Address> address, String reason)
    {
        public Resolved
        {
            requireNonNull(address, "address is null");
            requireNonNull(reason, "reason is null");
        }
    }

    /**
     * @param configured {@code spark.ferry.transport.rdma.address}, empty when unset
     * @param interfaceAddresses the addresses of a network interface by name (empty when there is none)
     */
    public static Resolved resolve(Nic nic, String configured, Function<String, List<InetAddress>> interfaceAddresses)
    {
        requireNonNull(nic, "nic is null");
        requireNonNull(configured, "configured is null");
        if (!configured.isBlank()) {
            try {
                InetAddress address = InetAddress.getByName(configured.trim());
                if (address instanceof Inet4Address ipv4) {
                    return new Resolved(Optional.of(ipv4), "address " + ipv4.getHostAddress() + " from spark.ferry.transport.rdma.address");
                }
                return new Resolved(Optional.empty(), "spark.ferry.transport.rdma.address " + configured + " is not an IPv4 address (DiSNI binds IPv4 only)");
            }
            catch (UnknownHostException e) {
                return new Resolved(Optional.empty(), "spark.ferry.transport.rdma.address " + configured + " does not resolve: " + e.getMessage());
            }
        }
        for (String netdev : nic.netdevs()) {
            for (InetAddress address : interfaceAddresses.apply(netdev)) {
                if (address instanceof Inet4Address ipv4 && !ipv4.isAnyLocalAddress()) {
                    return new Resolved(Optional.of(ipv4), "address " + ipv4.getHostAddress() + " of " + nic.name() + "'s interface " + netdev);
                }
            }
        }
        return new Resolved(Optional.empty(), "NIC " + nic.name() + " has no IPv4 address on its interfaces " + nic.netdevs()
                + " to open it by (set spark.ferry.transport.rdma.address to the NIC's own IPv4 address)");
    }

    /** This machine's addresses of interface {@code name}. */
    public static List<InetAddress> systemInterfaceAddresses(String name)
    {
        try {
            NetworkInterface networkInterface = NetworkInterface.getByName(name);
            return networkInterface == null ? List.of() : Collections.list(networkInterface.getInetAddresses());
        }
        catch (SocketException e) {
            return List.of();
        }
    }
}
