package dev.ferry.shuffle.transport.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.ferry.topology.route.Route;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestRouteMetrics
{
    @Test
    void executorTotalsMergeInAnyOrderAndSurviveTheWire()
    {
        RouteCounters first = new RouteCounters();
        first.recordBlock(Route.NVLINK, 100);
        first.recordBlock(Route.NVLINK, 50);
        first.recordBlock(Route.RDMA, 7);
        RouteCounters second = new RouteCounters();
        second.recordBlock(Route.NVLINK, 1);
        second.recordBlock(Route.TCP, 0);
        RouteTotals a = first.snapshot();
        RouteTotals b = second.snapshot();
        RouteTotals merged = a.merge(b);
        assertEquals(merged, b.merge(a));
        assertEquals(merged, RouteTotals.empty().merge(a).merge(b));
        assertEquals(151, merged.bytes(Route.NVLINK));
        assertEquals(3, merged.blocks(Route.NVLINK));
        assertEquals(1, merged.blocks(Route.TCP), "an empty block still counts as a block on its route");
        assertEquals(0, merged.bytes(Route.GPUDIRECT_RDMA));
        assertEquals(List.of(Route.NVLINK, Route.RDMA, Route.TCP), merged.usedRoutes());
        assertEquals(merged, RouteTotals.fromBytes(merged.toBytes()));
        assertEquals(RouteTotals.empty(), RouteTotals.fromBytes(RouteTotals.empty().toBytes()));
        assertTrue(merged.toString().contains("NVLINK: 151 bytes in 3 block(s)"), merged.toString());
        assertThrows(IllegalArgumentException.class, () -> RouteTotals.fromBytes(new byte[] {0, 0, 0, 1, 0, 3, 'F', 'O', 'O'}));
        assertThrows(IllegalArgumentException.class, () -> first.recordBlock(Route.RDMA, -1));
    }

    @Test
    void countersAreExactUnderConcurrency()
            throws InterruptedException
    {
        RouteCounters counters = new RouteCounters();
        CountDownLatch done = new CountDownLatch(4);
        for (int t = 0; t < 4; t++) {
            new Thread(() -> {
                for (int i = 0; i < 10_000; i++) {
                    counters.recordBlock(Route.HOST_SHM, 3);
                }
                done.countDown();
            }).start();
        }
        assertTrue(done.await(30, TimeUnit.SECONDS));
        assertEquals(40_000, counters.snapshot().blocks(Route.HOST_SHM));
        assertEquals(120_000, counters.snapshot().bytes(Route.HOST_SHM));
    }

    @Test
    void eachPeersRouteIsLoggedOnceAndChangesAreLoggedAndCounted()
    {
        List<String> lines = new ArrayList<>();
        PeerRouteLog log = new PeerRouteLog(lines::add);
        assertTrue(log.record("executor-2@node-b", Route.GPUDIRECT_RDMA, "GPU0 and mlx5_0 share a PCIe switch (PIX), peermem loaded"));
        assertFalse(log.record("executor-2@node-b", Route.GPUDIRECT_RDMA, "same decision again"));
        assertTrue(log.record("executor-3@node-a", Route.NVLINK, "NV12 between GPU0 and GPU1"));
        assertTrue(log.record("executor-2@node-b", Route.RDMA_HOST_STAGED, "GPU registration failed: BAR1 exhausted"));
        assertEquals(List.of(
                "Ferry route to executor-2@node-b: GPUDIRECT_RDMA (GPU0 and mlx5_0 share a PCIe switch (PIX), peermem loaded)",
                "Ferry route to executor-3@node-a: NVLINK (NV12 between GPU0 and GPU1)",
                "Ferry route to executor-2@node-b changed from GPUDIRECT_RDMA to RDMA_HOST_STAGED (GPU registration failed: BAR1 exhausted)"), lines);
        assertEquals(1, log.changes());
        assertEquals(2, log.routes().size());
    }
}
