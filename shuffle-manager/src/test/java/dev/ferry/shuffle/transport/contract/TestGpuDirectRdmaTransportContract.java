package dev.ferry.shuffle.transport.contract;

import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

import dev.ferry.shuffle.placement.ExecutorPlace;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.CmFault;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedNicOptions;
import dev.ferry.topology.route.Route;

/**
 * {@code GPUDIRECT_RDMA}: executors on the two nodes of dgx-h100-ib-2node, blocks in a simulated
 * GPU's tiered store, their device memory registered with the serving simulated NIC (peer memory
 * loaded) and READ into the reader's registered GPU memory. Faults come from the NIC's test hook.
 */
class TestGpuDirectRdmaTransportContract
        extends ShuffleTransportContract
{
    @Override
    protected Route route()
    {
        return Route.GPUDIRECT_RDMA;
    }

    @Override
    protected boolean servesEmptyBlocks()
    {
        return false;
    }

    @Override
    protected ContractEndpoints start(ContractSecurity security, ContractFault fault)
            throws Exception
    {
        ExecutorPlace self = new ExecutorPlace("dgx-a", Optional.of("GPU0"));
        ExecutorPlace peer = new ExecutorPlace("dgx-b", Optional.of("GPU0"));
        RoutedEndpoints.NicFactory nics = SimulatedNics.with(new SimulatedNicOptions(true, 256L << 20, false, CmFault.NONE), fault);
        return new RoutedEndpoints(new RoutedEndpoints.Wiring("dgx-h100-ib-2node", self, peer, true, nics, fault.captureOnly(), 0), security, endpointDirectory());
    }

    @Override
    protected Set<ContractFault> injectableFaults()
    {
        return EnumSet.of(ContractFault.PEER_DIES, ContractFault.CUT_SHORT, ContractFault.FLIP_BYTE, ContractFault.STALE_KEY);
    }
}
