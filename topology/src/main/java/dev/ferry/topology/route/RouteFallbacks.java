package dev.ferry.topology.route;

import java.util.Optional;

/**
 * The route to take next when the one decided for a peer turns out not to work between the two
 * processes (found only when it is first used): an IPC handle the reader cannot open (the
 * exporter's pid is not visible, separate PID namespaces or pods, no shared {@code /dev/shm}), GPU
 * memory the exporter's NIC cannot register ({@code ibv_reg_mr}: no peer memory, BAR1 full), or
 * shared memory the reader cannot see. Each step drops the one mechanism that failed and keeps the
 * rest of the decision, so the chain is short and ends at the stream:
 * <pre>
 * NVLINK, PCIE_P2P, PEER_GPU_D2H -> HOST_STAGED (the exporter stages the block through its host memory)
 * GPUDIRECT_RDMA                 -> RDMA_HOST_STAGED (host memory registered instead of GPU memory)
 * HOST_STAGED, HOST_SHM          -> TCP (no shared memory between the two)
 * RDMA, RDMA_HOST_STAGED         -> TCP
 * </pre>
 * Every step goes further down this list, so a peer falls back at most three times.
 */
final class RouteFallbacks
{
    private RouteFallbacks() {}

    static Optional<RunnerUp> after(Route refused, String why)
    {
        Route next = switch (refused) {
            case NVLINK, PCIE_P2P, PEER_GPU_D2H -> Route.HOST_STAGED;
            case GPUDIRECT_RDMA -> Route.RDMA_HOST_STAGED;
            case HOST_STAGED, HOST_SHM, RDMA, RDMA_HOST_STAGED -> Route.TCP;
            default -> null;
        };
        return Optional.ofNullable(next).map(route -> new RunnerUp(route, refused + " cannot be used: " + why));
    }
}
