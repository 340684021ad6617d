package dev.ferry.topology.route;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The per-peer fallback chain: each refused route drops only the mechanism that failed, and every chain ends at TCP within three steps. */
class TestRouteFallbacks
{
    private final RoutePolicy policy = new RoutePolicy(RoutePolicyConfig.defaults());

    @Test
    void eachRefusedRouteFallsBackToTheNextWithTheReason()
    {
        assertEquals(Route.HOST_STAGED, next(Route.PEER_GPU_D2H));
        assertEquals(Route.HOST_STAGED, next(Route.NVLINK));
        assertEquals(Route.HOST_STAGED, next(Route.PCIE_P2P));
        assertEquals(Route.RDMA_HOST_STAGED, next(Route.GPUDIRECT_RDMA));
        assertEquals(Route.TCP, next(Route.HOST_STAGED));
        assertEquals(Route.TCP, next(Route.HOST_SHM));
        assertEquals(Route.TCP, next(Route.RDMA_HOST_STAGED));
        assertEquals(Optional.empty(), policy.fallbackAfter(Route.TCP, "x"));
        assertEquals(Optional.empty(), policy.fallbackAfter(Route.IPOIB_TCP, "x"));
        RunnerUp runnerUp = policy.fallbackAfter(Route.PEER_GPU_D2H, "cudaIpcOpenMemHandle: invalid argument").orElseThrow();
        assertTrue(runnerUp.whyNot().contains("PEER_GPU_D2H") && runnerUp.whyNot().contains("cudaIpcOpenMemHandle"), runnerUp.whyNot());
    }

    @Test
    void everyChainEndsAtTheStreamWithinThreeSteps()
    {
        for (Route start : EnumSet.allOf(Route.class)) {
            List<Route> chain = new ArrayList<>(List.of(start));
            for (Optional<RunnerUp> next = policy.fallbackAfter(start, "refused"); next.isPresent(); next = policy.fallbackAfter(next.get().route(), "refused")) {
                assertTrue(!chain.contains(next.get().route()), "a chain never returns to a route it left: " + chain);
                chain.add(next.get().route());
            }
            assertTrue(chain.size() <= 4, start + ": " + chain);
        }
    }

    private Route next(Route refused)
    {
        return policy.fallbackAfter(refused, "refused").orElseThrow().route();
    }
}
