package dev.ferry.shuffle.transport.ipc;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import dev.ferry.device.IpcHandle;
import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.FetchedBlocks;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.RouteUnavailableException;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.client.TcpConnection;
import dev.ferry.shuffle.transport.client.TcpShuffleTransport;
import dev.ferry.shuffle.transport.metrics.DeviceRouteFallbacks;
import dev.ferry.shuffle.transport.metrics.RouteCounters;
import dev.ferry.shuffle.transport.shm.ShmBlockFetcher;
import dev.ferry.shuffle.transport.shm.ShmBlockReader;
import dev.ferry.shuffle.transport.wire.BlockLocation;
import dev.ferry.shuffle.transport.wire.FetchRoute;
import dev.ferry.shuffle.transport.wire.IpcLocation;
import dev.ferry.shuffle.transport.wire.RouteRefusal;
import dev.ferry.topology.route.Route;
import org.apache.arrow.memory.BufferAllocator;

/**
 * The client side of the device IPC routes: asks a same-node peer for GPU-resident blocks over
 * CUDA IPC ({@code route}: PEER_GPU_D2H, the route policy's answer for a CPU consumer) and copies
 * each from the peer's GPU straight into host memory for Spark's CPU decoder (the peer GPU's D->H
 * over its own PCIe link: no NVLink or peer link is crossed); a block the peer holds in host memory
 * arrives through shared memory and is counted on HOST_STAGED (logged once per peer, counted in
 * {@link DeviceRouteFallbacks}). A handle this executor cannot open, or a block the peer cannot
 * export ({@link RouteRefusal}), fails the request with a {@link RouteUnavailableException}: the
 * routing transport then falls back for this peer and asks again over the next route.
 */
public final class IpcBlockFetcher
{
    private IpcBlockFetcher() {}

    /** {@code device} counts the IPC blocks; {@code counters} gets the staged ones; the result names each block's route. */
    public static FetchedBlocks fetch(TcpShuffleTransport tcp, PeerAddress peer, List<ShuffleBlockRef> blocks, BufferAllocator allocator, Route route,
            DeviceBlockReader device, ShmBlockReader staged, RouteCounters counters)
            throws IOException
    {
        List<String> carried = new ArrayList<>();
        FetchedBlocks fetched = tcp.fetch(peer, blocks, route.name(), connection -> {
            carried.clear();
            return connection.exchange(FetchRoute.DEVICE_IPC, blocks, (index, message) -> {
                if (message instanceof BlockLocation answer && answer.location() instanceof RouteRefusal refusal) {
                    throw new RouteUnavailableException(route, connection.peer() + " cannot export " + blocks.get(index) + " over CUDA IPC: " + refusal.reason(), null);
                }
                if (message instanceof BlockLocation answer && answer.location() instanceof IpcLocation location) {
                    BlockBytes block = copyDown(connection, blocks.get(index), IpcLocations.toHandle(location), allocator, device, route);
                    // A host read of the writer's GPU block is that GPU's D->H, not the pair's peer route: named and counted as such.
                    return TcpConnection.accounted(block, () -> carried.add(Route.PEER_GPU_D2H.name()));
                }
                BlockBytes block = ShmBlockFetcher.receive(connection, blocks.get(index), message, allocator, staged);
                return TcpConnection.accounted(block, () -> {
                    counters.recordBlock(Route.HOST_STAGED, block.length());
                    carried.add(Route.HOST_STAGED.name());
                    DeviceRouteFallbacks.record(route, Route.HOST_STAGED, blocks.get(index), peer);
                });
            });
        });
        return new FetchedBlocks(fetched.route(), fetched.blocks(), carried);
    }

    /**
     * The reduce side hands host batches to Spark's CPU operators, so the block is wanted in host
     * memory: one device-to-host copy straight out of the writer's exported GPU buffer, not a peer
     * copy into this executor's GPU followed by a second copy down (the block need not visit it).
     */
    private static BlockBytes copyDown(TcpConnection connection, ShuffleBlockRef block, IpcHandle handle, BufferAllocator allocator, DeviceBlockReader device,
            Route route)
            throws IOException
    {
        int length = Math.toIntExact(handle.length());
        try {
            return new BlockBytes(device.landInHost(handle, allocator), length);
        }
        catch (IpcImportRefused e) {
            // Separate PID namespaces or pods, no shared /dev/shm: the route does not work with this peer, the block is fine.
            throw new RouteUnavailableException(route, "this executor " + e.getMessage() + " (block " + block + " of " + connection.peer() + ")", e);
        }
        catch (RuntimeException e) {
            throw new IOException("Copying " + block + " from " + connection.peer() + " over " + route + ": " + e.getMessage(), e);
        }
    }
}
