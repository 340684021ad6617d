package dev.ferry.shuffle.transport.rdma.verbs;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import dev.ferry.topology.model.LinkLayer;
import dev.ferry.topology.model.Nic;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A real NIC is opened by its own IPv4 address: configured, or found on its interfaces; never a wildcard, never silently. */
class TestNicAddresses
{
    private static final Nic NIC = new Nic("mlx5_0", Optional.empty(), LinkLayer.INFINIBAND, List.of(), OptionalInt.empty(), List.of("ib0", "ib1"));

    @Test
    void theConfiguredAddressWins()
            throws Exception
    {
        InetAddress other = InetAddress.getByName("192.168.0.9");
        NicAddresses.Resolved resolved = NicAddresses.resolve(NIC, "10.1.2.3", netdev -> List.of(other));
        assertEquals("10.1.2.3", resolved.address().orElseThrow().getHostAddress());
        assertTrue(resolved.reason().contains("spark.ferry.transport.rdma.address"), resolved.reason());
        NicAddresses.Resolved ipv6 = NicAddresses.resolve(NIC, "fe80::1", netdev -> List.of());
        assertTrue(ipv6.address().isEmpty());
        assertTrue(ipv6.reason().contains("not an IPv4 address"), ipv6.reason());
    }

    @Test
    void otherwiseTheFirstIpv4AddressOfTheNicsInterfaces()
            throws Exception
    {
        Map<String, List<InetAddress>> interfaces = Map.of(
                "ib0", List.of(InetAddress.getByName("fe80::2")),
                "ib1", List.of(InetAddress.getByName("fe80::3"), InetAddress.getByName("10.9.8.7")));
        NicAddresses.Resolved resolved = NicAddresses.resolve(NIC, "", netdev -> interfaces.getOrDefault(netdev, List.of()));
        assertEquals("10.9.8.7", resolved.address().orElseThrow().getHostAddress());
        assertTrue(resolved.reason().contains("mlx5_0's interface ib1"), resolved.reason());
    }

    @Test
    void aNicWithoutAnAddressIsRefusedWithWhatToSet()
    {
        NicAddresses.Resolved resolved = NicAddresses.resolve(NIC, " ", netdev -> List.of());
        assertTrue(resolved.address().isEmpty());
        assertTrue(resolved.reason().contains("[ib0, ib1]") && resolved.reason().contains("spark.ferry.transport.rdma.address"), resolved.reason());
    }
}
