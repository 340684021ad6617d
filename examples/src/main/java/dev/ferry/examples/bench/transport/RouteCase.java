package dev.ferry.examples.bench.transport;

import java.util.List;
import java.util.Optional;

import dev.ferry.shuffle.placement.ExecutorPlace;
import dev.ferry.topology.route.Route;

/**
 * One route to measure: where the two endpoints sit in which topology file, where the blocks live,
 * whether the peer needs a process of its own (CUDA IPC handles open only in another process), and
 * whether it is compared with memcpy (same node) or loopback TCP (across nodes). A route that
 * cannot be measured carries the reason instead.
 */
public record RouteCase(Route route, boolean sameNode, String topology, ExecutorPlace self, ExecutorPlace peer, boolean deviceBlocks, boolean readerDevice,
        boolean peerProcess, Optional<String> notMeasured, boolean encrypted)
{
    /** The route's name, with {@code +crypto} where the stream is authenticated and encrypted (spark.network.crypto.enabled). */
    public String label()
    {
        return route.name() + (encrypted ? "+crypto" : "");
    }

    private static ExecutorPlace place(String node, String gpu)
    {
        return new ExecutorPlace(node, Optional.of(gpu));
    }

    private static RouteCase measured(Route route, boolean sameNode, String topology, ExecutorPlace self, ExecutorPlace peer, boolean deviceBlocks, boolean readerDevice)
    {
        return new RouteCase(route, sameNode, topology, self, peer, deviceBlocks, readerDevice, false, Optional.empty(), false);
    }

    /** A same-node GPU route over CUDA IPC: the peer serves from its own JVM, the reader lands blocks on its (simulated) GPU. */
    private static RouteCase overIpc(Route route, String topology, ExecutorPlace self, ExecutorPlace peer)
    {
        return new RouteCase(route, true, topology, self, peer, true, true, true, Optional.empty(), false);
    }

    public static List<RouteCase> all()
    {
        return List.of(
                measured(Route.HOST_SHM, true, "pcie-roce-2node", place("pcie-a", "GPU0"), place("pcie-a", "GPU1"), false, false),
                measured(Route.HOST_STAGED, true, "pcie-roce-2node", place("pcie-a", "GPU0"), place("pcie-a", "GPU1"), true, false),
                overIpc(Route.NVLINK, "dgx-h100-ib-2node", place("dgx-a", "GPU0"), place("dgx-a", "GPU1")),
                overIpc(Route.PCIE_P2P, "pcie-roce-2node", place("pcie-a", "GPU0"), place("pcie-a", "GPU1")),
                measured(Route.TCP, false, "pcie-roce-2node", place("pcie-a", "GPU0"), null, false, false),
                // The cost of spark.network.crypto.enabled: the same stream, authenticated and AES-GCM encrypted.
                new RouteCase(Route.TCP, false, "pcie-roce-2node", place("pcie-a", "GPU0"), null, false, false, false, Optional.empty(), true),
                measured(Route.RDMA, false, "pcie-roce-2node", place("pcie-a", "GPU0"), place("pcie-b", "GPU0"), false, false),
                measured(Route.RDMA_HOST_STAGED, false, "pcie-roce-2node", place("pcie-a", "GPU0"), place("pcie-b", "GPU0"), true, true),
                measured(Route.GPUDIRECT_RDMA, false, "dgx-h100-ib-2node", place("dgx-a", "GPU0"), place("dgx-b", "GPU0"), true, true));
    }
}
