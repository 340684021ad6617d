package dev.ferry.shuffle;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.model.NodeTopology;

/**
 * The routes an exchange's metrics list: those the cluster's topology can use, so a run on
 * machines without GPUs or RDMA NICs is not shown a column of zeros for each. A superset on
 * purpose (GPU routes wherever a GPU is, RDMA routes wherever a NIC is): a route left out would
 * hide bytes. The driver plugin says where the topology comes from (the topology file, else the
 * executors' probed nodes); with neither known yet, every route is listed.
 */
public final class UsableRoutes
{
    private static final List<String> ALWAYS = List.of(ExchangeMetrics.ROUTE_LOCAL, "HOST_SHM", "TCP");
    private static final List<String> GPU = List.of("NVLINK", "PCIE_P2P", "PEER_GPU_D2H", "HOST_STAGED");
    private static final List<String> NIC = List.of("RDMA_HOST_STAGED", "RDMA", "IPOIB_TCP");

    private static volatile Supplier<Optional<ClusterTopology>> cluster = Optional::empty;

    private UsableRoutes() {}

    /** Where the driver finds the cluster's topology when an exchange is planned. */
    public static void install(Supplier<Optional<ClusterTopology>> source)
    {
        cluster = source;
    }

    public static void reset()
    {
        cluster = Optional::empty;
    }

    /** In {@link ExchangeMetrics#ROUTES} order. */
    public static Set<String> current()
    {
        return cluster.get().map(UsableRoutes::of).orElseGet(() -> new LinkedHashSet<>(ExchangeMetrics.ROUTES));
    }

    public static Set<String> of(ClusterTopology topology)
    {
        boolean gpus = topology.nodes().stream().map(NodeTopology::gpus).anyMatch(list -> !list.isEmpty());
        boolean nics = topology.nodes().stream().map(NodeTopology::nics).anyMatch(list -> !list.isEmpty());
        Set<String> usable = new LinkedHashSet<>();
        for (String route : ExchangeMetrics.ROUTES) {
            if (ALWAYS.contains(route) || (gpus && GPU.contains(route)) || (nics && NIC.contains(route)) || (gpus && nics && route.equals("GPUDIRECT_RDMA"))) {
                usable.add(route);
            }
        }
        return usable;
    }
}
