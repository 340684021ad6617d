package dev.ferry.shuffle.transport.contract;

import dev.ferry.shuffle.transport.InjectedFault;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedNicOptions;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedVerbsProvider;

/** Simulated NICs for the RDMA families, with a contract fault mapped onto the NIC's own test hook. */
final class SimulatedNics
{
    private SimulatedNics() {}

    static RoutedEndpoints.NicFactory with(SimulatedNicOptions options, ContractFault fault)
    {
        InjectedFault injected = switch (fault) {
            case NONE, CAPTURE -> InjectedFault.NONE;
            case PEER_DIES -> InjectedFault.PEER_DIES;
            case CUT_SHORT -> InjectedFault.CUT_SHORT;
            case FLIP_BYTE -> InjectedFault.FLIP_BYTE;
            case STALE_KEY -> InjectedFault.STALE_KEY;
        };
        SimulatedVerbsProvider provider = new SimulatedVerbsProvider(options.withFault(injected));
        return name -> provider.openLoopbackDevice(name, RoutedEndpoints.VERBS);
    }
}
