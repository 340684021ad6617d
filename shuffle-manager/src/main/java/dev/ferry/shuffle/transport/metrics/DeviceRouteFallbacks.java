package dev.ferry.shuffle.transport.metrics;

import java.util.concurrent.atomic.AtomicLong;

import dev.ferry.shuffle.FerryFallbacks;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.topology.route.Route;

/**
 * Blocks that a device route (NVLINK, PCIE_P2P, GPUDIRECT_RDMA) could not carry because the peer
 * holds them in host memory (spilled off its GPU, or its map output store is on host although the
 * topology gave a device route): the peer's answer says so, they travel through host memory instead
 * (HOST_STAGED, RDMA_HOST_STAGED), are counted on that route, and are recorded here with the reason
 * (logged once per peer and route pair).
 */
public final class DeviceRouteFallbacks
{
    private static final AtomicLong BLOCKS = new AtomicLong();

    private DeviceRouteFallbacks() {}

    public static void record(Route decided, Route carrier, ShuffleBlockRef block, PeerAddress peer)
    {
        BLOCKS.incrementAndGet();
        // One key per peer and route pair (not per block), so the log says it once and the map stays small.
        FerryFallbacks.record(decided + " blocks of executor " + peer.executorId() + " carried over " + carrier,
                "the peer holds them in host memory (spilled off its GPU, or its map output store is on host; first: " + block
                        + "), so they were staged through host memory");
    }

    /** Blocks of this JVM that went through host memory although their peer's route was a device route. */
    public static long blocks()
    {
        return BLOCKS.get();
    }
}
