package dev.ferry.shuffle.transport.contract;

import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

import dev.ferry.shuffle.placement.ExecutorPlace;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.CmFault;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedNicOptions;
import dev.ferry.topology.route.Route;

/**
 * {@code RDMA}: executors on the two nodes of pcie-roce-2node, host-resident blocks registered with
 * the serving simulated NIC and read by one-sided READs. Faults come from the NIC's test hook.
 */
class TestRdmaTransportContract
        extends ShuffleTransportContract
{
    @Override
    protected Route route()
    {
        return Route.RDMA;
    }

    @Override
    protected ContractEndpoints start(ContractSecurity security, ContractFault fault)
            throws Exception
    {
        ExecutorPlace self = new ExecutorPlace("pcie-a", Optional.of("GPU0"));
        ExecutorPlace peer = new ExecutorPlace("pcie-b", Optional.of("GPU0"));
        RoutedEndpoints.NicFactory nics = SimulatedNics.with(new SimulatedNicOptions(false, 1 << 20, false, CmFault.NONE), fault);
        return new RoutedEndpoints(new RoutedEndpoints.Wiring("pcie-roce-2node", self, peer, false, nics, fault.captureOnly(), 0), security, endpointDirectory());
    }

    @Override
    protected Set<ContractFault> injectableFaults()
    {
        return EnumSet.of(ContractFault.PEER_DIES, ContractFault.CUT_SHORT, ContractFault.FLIP_BYTE, ContractFault.STALE_KEY);
    }
}
