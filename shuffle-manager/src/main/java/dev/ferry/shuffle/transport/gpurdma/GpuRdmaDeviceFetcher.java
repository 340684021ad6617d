package dev.ferry.shuffle.transport.gpurdma;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.RouteUnavailableException;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.client.TcpShuffleTransport;
import dev.ferry.shuffle.transport.ipc.DeviceLanding;
import dev.ferry.shuffle.transport.ipc.IpcDeviceFetcher.Landed;
import dev.ferry.shuffle.transport.metrics.DeviceRouteFallbacks;
import dev.ferry.shuffle.transport.metrics.RouteCounters;
import dev.ferry.shuffle.transport.rdma.RdmaBlockFetcher;
import dev.ferry.shuffle.transport.rdma.VerbsBlocks;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsConnection;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsException;
import dev.ferry.shuffle.transport.wire.BlockLocation;
import dev.ferry.shuffle.transport.wire.FetchRoute;
import dev.ferry.shuffle.transport.wire.RemoteSlices;
import dev.ferry.shuffle.transport.wire.RouteRefusal;
import dev.ferry.topology.route.Route;
import org.apache.arrow.memory.BufferAllocator;

/**
 * GPUDIRECT_RDMA for a device consumer: asks another node's peer for GPU-resident blocks and READs
 * each out of the peer's GPU memory straight into a buffer of this executor's GPU
 * ({@link VerbsBlocks#readToDevice}), where {@link GpuRdmaBlockFetcher} lands them in host memory
 * for Spark's CPU reduce. A block the peer holds in host memory (spilled) is READ into host memory
 * and uploaded, counted on {@code RDMA_HOST_STAGED} and in {@link DeviceRouteFallbacks}. A peer
 * whose NIC refuses to register its GPU memory, or a NIC here that cannot register this GPU's, is a
 * {@link RouteUnavailableException} naming the peer.
 */
public final class GpuRdmaDeviceFetcher
{
    private GpuRdmaDeviceFetcher() {}

    /** {@code blocks} of {@code peer} in buffers of {@code landing}, in order, owned by the caller; each counted in {@code counters} on the route that carried it. */
    public static List<Landed> fetch(TcpShuffleTransport tcp, PeerAddress peer, List<ShuffleBlockRef> blocks, VerbsBlocks verbs, DeviceLanding landing,
            BufferAllocator staging, RouteCounters counters)
            throws IOException
    {
        List<Landed> landed = new ArrayList<>(blocks.size());
        boolean success = false;
        try {
            tcp.fetch(peer, blocks, Route.GPUDIRECT_RDMA.name(), connection -> {
                landed.forEach(Landed::close);
                landed.clear();
                VerbsConnection nic = RdmaBlockFetcher.verbsConnection(connection, verbs);
                boolean healthy = false;
                try {
                    List<BlockBytes> receipts = connection.exchange(FetchRoute.GPUDIRECT_RDMA, blocks, (index, message) -> {
                        ShuffleBlockRef block = blocks.get(index);
                        if (message instanceof BlockLocation answer && answer.location() instanceof RouteRefusal refusal) {
                            throw new RouteUnavailableException(Route.GPUDIRECT_RDMA, connection.peer() + ": " + refusal.reason(), null);
                        }
                        RemoteSlices slices = RdmaBlockFetcher.slices(connection, block, message);
                        landed.add(read(slices, block, peer, verbs, nic, landing, staging, counters));
                        // The exchange's receipt for this block; its bytes are in the landed device buffer.
                        return new BlockBytes(staging.getEmpty(), 0);
                    });
                    healthy = true;
                    return receipts;
                }
                finally {
                    verbs.release(nic, healthy);
                }
            });
            success = true;
            return landed;
        }
        finally {
            if (!success) {
                landed.forEach(Landed::close);
            }
        }
    }

    private static Landed read(RemoteSlices slices, ShuffleBlockRef block, PeerAddress peer, VerbsBlocks verbs, VerbsConnection nic, DeviceLanding landing,
            BufferAllocator staging, RouteCounters counters)
            throws IOException
    {
        DeviceBuffer target = landing.allocate(Math.max(slices.length(), 1));
        boolean success = false;
        try {
            Route route;
            if (slices.memory() == RemoteSlices.Memory.DEVICE) {
                route = Route.GPUDIRECT_RDMA;
                try {
                    verbs.readToDevice(slices, landing.runtime(), target, nic);
                }
                catch (VerbsException e) {
                    throw new RouteUnavailableException(Route.GPUDIRECT_RDMA, "this executor's NIC cannot register its GPU memory for " + block + " of " + peer + ": "
                            + e.getMessage(), e);
                }
            }
            else {
                route = Route.RDMA_HOST_STAGED;
                try (BlockBytes host = verbs.read(slices, staging, nic); var stream = landing.runtime().newStream(landing.device())) {
                    stream.copyFromHost(host.buffer().nioBuffer(0, Math.toIntExact(host.length())), target, 0);
                    stream.synchronize();
                }
                DeviceRouteFallbacks.record(Route.GPUDIRECT_RDMA, route, block, peer);
            }
            counters.recordBlock(route, slices.length());
            success = true;
            return new Landed(block, target, route);
        }
        catch (RouteUnavailableException e) {
            throw e;
        }
        catch (IOException | RuntimeException e) {
            throw new IOException("RDMA READ of " + block + " from " + peer + " into this executor's GPU failed: " + e.getMessage(), e);
        }
        finally {
            if (!success) {
                target.close();
            }
        }
    }
}
