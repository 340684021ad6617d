package dev.ferry.shuffle.transport.contract;

import java.util.EnumSet;
import java.util.Set;

import dev.ferry.topology.route.Route;

/** The stream transport ({@code TCP}; {@code IPOIB_TCP} is the same classes over another interface). Faults come from a proxy on the wire. */
class TestTcpTransportContract
        extends ShuffleTransportContract
{
    @Override
    protected Route route()
    {
        return Route.TCP;
    }

    @Override
    protected ContractEndpoints start(ContractSecurity security, ContractFault fault)
            throws Exception
    {
        // 200000 bytes into the answer lies inside the checked block's body.
        return new RoutedEndpoints(new RoutedEndpoints.Wiring(null, null, null, false, null, fault, 200_000), security, endpointDirectory());
    }

    @Override
    protected Set<ContractFault> injectableFaults()
    {
        return EnumSet.of(ContractFault.PEER_DIES, ContractFault.CUT_SHORT, ContractFault.FLIP_BYTE);
    }
}
