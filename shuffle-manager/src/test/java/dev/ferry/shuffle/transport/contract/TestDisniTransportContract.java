package dev.ferry.shuffle.transport.contract;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

import dev.ferry.shuffle.placement.ExecutorPlace;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsAvailability;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsProvider;
import dev.ferry.shuffle.transport.rdma.verbs.disni.DisniProbe;
import dev.ferry.topology.route.Route;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code RDMA} over a real NIC through DiSNI. Skipped with the DiSNI probe's reason where libdisni
 * or an RDMA device is missing, and without {@code FERRY_TEST_RDMA_ADDRESS} (the NIC's own IPv4
 * address: RDMA CM finds the device by address). No faults can be injected into real hardware.
 */
class TestDisniTransportContract
        extends ShuffleTransportContract
{
    private static final String ADDRESS_VARIABLE = "FERRY_TEST_RDMA_ADDRESS";

    @Override
    protected void assumeAvailable()
    {
        VerbsAvailability availability = DisniProbe.availability();
        assumeTrue(availability.available(), availability.reason());
        assumeTrue(System.getenv(ADDRESS_VARIABLE) != null, "DiSNI loads, but " + ADDRESS_VARIABLE + " (this NIC's IPv4 address) is not set");
    }

    @Override
    protected Route route()
    {
        return Route.RDMA;
    }

    @Override
    protected ContractEndpoints start(ContractSecurity security, ContractFault fault)
            throws Exception
    {
        InetAddress address = InetAddress.getByName(System.getenv(ADDRESS_VARIABLE));
        VerbsProvider provider = DisniProbe.newProvider();
        RoutedEndpoints.NicFactory nics = name -> provider.openDevice(name, new InetSocketAddress(address, 0), RoutedEndpoints.VERBS);
        ExecutorPlace self = new ExecutorPlace("pcie-a", Optional.of("GPU0"));
        ExecutorPlace peer = new ExecutorPlace("pcie-b", Optional.of("GPU0"));
        return new RoutedEndpoints(new RoutedEndpoints.Wiring("pcie-roce-2node", self, peer, false, nics, fault.captureOnly(), 0), security, endpointDirectory());
    }

    @Override
    protected Set<ContractFault> injectableFaults()
    {
        return EnumSet.noneOf(ContractFault.class);
    }
}
