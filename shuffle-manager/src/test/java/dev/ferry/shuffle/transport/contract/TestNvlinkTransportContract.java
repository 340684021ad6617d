package dev.ferry.shuffle.transport.contract;

import dev.ferry.shuffle.placement.ExecutorPlace;
import dev.ferry.topology.route.Route;

/** {@code NVLINK}: two GPUs of one DGX H100 node (dgx-h100-ib-2node), over simulated CUDA IPC. */
class TestNvlinkTransportContract
        extends IpcContractFamily
{
    @Override
    protected Route route()
    {
        return Route.NVLINK;
    }

    @Override
    protected String topology()
    {
        return "dgx-h100-ib-2node";
    }

    @Override
    protected ExecutorPlace self()
    {
        return place("dgx-a", "GPU0");
    }

    @Override
    protected ExecutorPlace peer()
    {
        return place("dgx-a", "GPU1");
    }
}
