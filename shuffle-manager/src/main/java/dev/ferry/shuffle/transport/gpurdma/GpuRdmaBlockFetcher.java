package dev.ferry.shuffle.transport.gpurdma;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.FetchedBlocks;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.RouteUnavailableException;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.client.TcpConnection;
import dev.ferry.shuffle.transport.client.TcpShuffleTransport;
import dev.ferry.shuffle.transport.metrics.DeviceRouteFallbacks;
import dev.ferry.shuffle.transport.metrics.RouteCounters;
import dev.ferry.shuffle.transport.rdma.RdmaBlockFetcher;
import dev.ferry.shuffle.transport.rdma.VerbsBlocks;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsConnection;
import dev.ferry.shuffle.transport.wire.BlockLocation;
import dev.ferry.shuffle.transport.wire.FetchRoute;
import dev.ferry.shuffle.transport.wire.RemoteSlices;
import dev.ferry.shuffle.transport.wire.RouteRefusal;
import dev.ferry.topology.route.Route;
import org.apache.arrow.memory.BufferAllocator;

/**
 * GPUDIRECT_RDMA's client side: asks another node's peer for GPU-resident blocks and READs each
 * straight out of the peer's GPU memory into host memory here (Spark's reduce side decodes on the
 * CPU, so the block need not visit this executor's GPU). A block whose slices say host memory (the
 * peer had spilled it, or keeps its map outputs in host memory) is READ from there and counted on
 * RDMA_HOST_STAGED (logged once per peer, counted in {@link DeviceRouteFallbacks}). A peer whose NIC
 * refuses to register its GPU memory answers with a {@link RouteRefusal}: the request fails with a
 * {@link RouteUnavailableException} and the routing transport falls back for that peer.
 */
public final class GpuRdmaBlockFetcher
{
    private GpuRdmaBlockFetcher() {}

    /** Every block is counted in {@code counters}; the result names each block's route. */
    public static FetchedBlocks fetch(TcpShuffleTransport tcp, PeerAddress peer, List<ShuffleBlockRef> blocks, BufferAllocator allocator, VerbsBlocks verbs,
            RouteCounters counters)
            throws IOException
    {
        List<String> carried = new ArrayList<>();
        FetchedBlocks fetched = tcp.fetch(peer, blocks, Route.GPUDIRECT_RDMA.name(), connection -> {
            carried.clear();
            VerbsConnection nic = RdmaBlockFetcher.verbsConnection(connection, verbs);
            boolean healthy = false;
            try {
                List<BlockBytes> received = connection.exchange(FetchRoute.GPUDIRECT_RDMA, blocks, (index, message) -> {
                    if (message instanceof BlockLocation answer && answer.location() instanceof RouteRefusal refusal) {
                        // The peer's NIC cannot register its GPU memory: the route does not work with this peer, the block is fine.
                        throw new RouteUnavailableException(Route.GPUDIRECT_RDMA, connection.peer() + ": " + refusal.reason(), null);
                    }
                    RemoteSlices slices = RdmaBlockFetcher.slices(connection, blocks.get(index), message);
                    Route route = slices.memory() == RemoteSlices.Memory.DEVICE ? Route.GPUDIRECT_RDMA : Route.RDMA_HOST_STAGED;
                    BlockBytes block;
                    try {
                        block = verbs.read(slices, allocator, nic);
                    }
                    catch (IOException | RuntimeException e) {
                        throw new IOException("RDMA READ (" + route + ") of " + blocks.get(index) + " from " + peer + " failed: " + e.getMessage(), e);
                    }
                    return TcpConnection.accounted(block, () -> {
                        counters.recordBlock(route, block.length());
                        carried.add(route.name());
                        if (route != Route.GPUDIRECT_RDMA) {
                            DeviceRouteFallbacks.record(Route.GPUDIRECT_RDMA, route, blocks.get(index), peer);
                        }
                    });
                });
                healthy = true;
                return received;
            }
            finally {
                verbs.release(nic, healthy);
            }
        });
        return new FetchedBlocks(fetched.route(), fetched.blocks(), carried);
    }
}
