package dev.ferry.shuffle.transport.contract;

import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

import dev.ferry.shuffle.placement.ExecutorPlace;
import dev.ferry.topology.route.Route;

/**
 * The same-node device routes over simulated CUDA IPC, served from a child JVM. The block bytes
 * cross no wire (the reader copies them out of the exported memory into its host memory, reported
 * as {@code PEER_GPU_D2H}), so the wire faults
 * hit the handle exchange; a flipped byte or stale key there is not a data fault and is not injected.
 */
abstract class IpcContractFamily
        extends ShuffleTransportContract
{
    protected abstract String topology();

    protected abstract ExecutorPlace self();

    protected abstract ExecutorPlace peer();

    /** The reader lands blocks in host memory (a CPU reduce): one D->H out of the peer's GPU, not a peer copy. */
    @Override
    protected Route carriedRoute()
    {
        return Route.PEER_GPU_D2H;
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
        return new IpcEndpoints(topology(), self(), peer(), security, fault, endpointDirectory());
    }

    @Override
    protected Set<ContractFault> injectableFaults()
    {
        return EnumSet.of(ContractFault.PEER_DIES, ContractFault.CUT_SHORT);
    }

    static ExecutorPlace place(String node, String gpu)
    {
        return new ExecutorPlace(node, Optional.of(gpu));
    }
}
