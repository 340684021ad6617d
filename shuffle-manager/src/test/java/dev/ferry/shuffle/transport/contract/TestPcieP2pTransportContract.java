package dev.ferry.shuffle.transport.contract;

import dev.ferry.shuffle.placement.ExecutorPlace;
import dev.ferry.topology.route.Route;

/** {@code PCIE_P2P}: GPU0 and GPU1 of a PCIe node (pcie-roce-2node: one PCIe switch, PIX, NVML P2P OK), over simulated CUDA IPC. */
class TestPcieP2pTransportContract
        extends IpcContractFamily
{
    @Override
    protected Route route()
    {
        return Route.PCIE_P2P;
    }

    @Override
    protected String topology()
    {
        return "pcie-roce-2node";
    }

    @Override
    protected ExecutorPlace self()
    {
        return place("pcie-a", "GPU0");
    }

    @Override
    protected ExecutorPlace peer()
    {
        return place("pcie-a", "GPU1");
    }
}
