package dev.ferry.examples.bench.transport;

import java.util.List;
import java.util.Optional;

import dev.ferry.shuffle.route.ExecutorPlace;
import dev.ferry.topology.route.Route;

/**
 * One route to measure: where the two endpoints sit in which topology file, where the blocks live,
 * and whether it is compared with memcpy (same node) or loopback TCP (across nodes). A route that
 * cannot run in one JVM carries the reason instead.
 */
public record RouteCase(Route route, boolean sameNode, String topology, ExecutorPlace self, ExecutorPlace peer, boolean deviceBlocks, boolean readerDevice,
        Optional<String> notMeasured)
{
    private static ExecutorPlace place(String node, String gpu)
    {
        return new ExecutorPlace(node, Optional.of(gpu));
    }

    private static RouteCase measured(Route route, boolean sameNode, String topology, ExecutorPlace self, ExecutorPlace peer, boolean deviceBlocks, boolean readerDevice)
    {
        return new RouteCase(route, sameNode, topology, self, peer, deviceBlocks, readerDevice, Optional.empty());
    }

    public static List<RouteCase> all()
    {
        String ipc = "CUDA IPC handles open only in another process; this single-JVM benchmark cannot carry it";
        return List.of(
                measured(Route.HOST_SHM, true, "pcie-roce-2node", place("pcie-a", "GPU0"), place("pcie-a", "GPU1"), false, false),
                measured(Route.HOST_STAGED, true, "pcie-roce-2node", place("pcie-a", "GPU0"), place("pcie-a", "GPU1"), true, false),
                new RouteCase(Route.NVLINK, true, "dgx-h100-ib-2node", null, null, true, true, Optional.of(ipc)),
                new RouteCase(Route.PCIE_P2P, true, "pcie-roce-2node", null, null, true, true, Optional.of(ipc)),
                measured(Route.TCP, false, "pcie-roce-2node", place("pcie-a", "GPU0"), null, false, false),
                measured(Route.RDMA, false, "pcie-roce-2node", place("pcie-a", "GPU0"), place("pcie-b", "GPU0"), false, false),
                measured(Route.RDMA_HOST_STAGED, false, "pcie-roce-2node", place("pcie-a", "GPU0"), place("pcie-b", "GPU0"), true, true),
                measured(Route.GPUDIRECT_RDMA, false, "dgx-h100-ib-2node", place("dgx-a", "GPU0"), place("dgx-b", "GPU0"), true, true));
    }
}
