package dev.ferry.shuffle.transport.contract;

import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

import dev.ferry.shuffle.placement.ExecutorPlace;
import dev.ferry.topology.route.Route;

/**
 * {@code HOST_SHM}: two executors of one node of pcie-roce-2node, host-resident blocks published in
 * shared memory, handles over the socket. The block bytes cross no wire, so the wire faults hit the
 * handle exchange (a flipped byte there is not a data fault, so it is not injected).
 */
class TestHostShmTransportContract
        extends ShuffleTransportContract
{
    @Override
    protected Route route()
    {
        return Route.HOST_SHM;
    }

    @Override
    protected ContractEndpoints start(ContractSecurity security, ContractFault fault)
            throws Exception
    {
        ExecutorPlace self = new ExecutorPlace("pcie-a", Optional.of("GPU0"));
        ExecutorPlace peer = new ExecutorPlace("pcie-a", Optional.of("GPU1"));
        // Byte 6 of the answer lies inside the first handle response frame.
        return new RoutedEndpoints(new RoutedEndpoints.Wiring("pcie-roce-2node", self, peer, false, null, fault, 6), security, endpointDirectory());
    }

    @Override
    protected Set<ContractFault> injectableFaults()
    {
        return EnumSet.of(ContractFault.PEER_DIES, ContractFault.CUT_SHORT);
    }
}
