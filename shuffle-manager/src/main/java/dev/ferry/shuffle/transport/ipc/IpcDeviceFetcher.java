package dev.ferry.shuffle.transport.ipc;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import dev.ferry.device.DeviceStream;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.RouteUnavailableException;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
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

import static java.util.Objects.requireNonNull;

/**
 * The device consumer's side of the same-node IPC routes: asks a peer for GPU-resident blocks over
 * CUDA IPC and lands each in this executor's GPU ({@link DeviceBlockReader#readToDevice}: a peer
 * copy over {@code NVLINK} / {@code PCIE_P2P}, or {@code HOST_STAGED} through pinned bounce
 * buffers where the route says so or the backend refuses the pair), where
 * {@link IpcBlockFetcher} lands them in host memory for Spark's CPU reduce. A block the peer has
 * spilled off its GPU comes through shared memory and is uploaded here, counted on
 * {@code HOST_STAGED} and in {@link DeviceRouteFallbacks}. A peer that cannot export a block, or a
 * handle this executor cannot open, is a {@link RouteUnavailableException} naming the peer.
 */
public final class IpcDeviceFetcher
{
    private IpcDeviceFetcher() {}

    /** One block in this executor's GPU memory, and the route that carried its bytes. */
    public record Landed(ShuffleBlockRef block, DeviceBuffer buffer, Route carried)
            implements AutoCloseable
    {
        public Landed
        {
            requireNonNull(block, "block is null");
            requireNonNull(buffer, "buffer is null");
            requireNonNull(carried, "carried is null");
        }

        @Override
        public void close()
        {
            buffer.close();
        }
    }

    /**
     * Fetches {@code blocks} of {@code peer} into buffers of {@code landing} (this executor's GPU),
     * in order; the caller owns them. {@code staging}: host memory for spilled blocks on their way
     * up; {@code counters}: where the reader and the staged uploads count each block's route.
     */
    public static List<Landed> fetch(TcpShuffleTransport tcp, PeerAddress peer, List<ShuffleBlockRef> blocks, Route route, DeviceBlockReader reader,
            DeviceLanding landing, ShmBlockReader staged, BufferAllocator staging, RouteCounters counters)
            throws IOException
    {
        List<Landed> landed = new ArrayList<>(blocks.size());
        boolean success = false;
        try {
            tcp.fetch(peer, blocks, route.name(), connection -> {
                // A retried exchange starts over: what an attempt that failed part way landed is freed.
                landed.forEach(Landed::close);
                landed.clear();
                return connection.exchange(FetchRoute.DEVICE_IPC, blocks, (index, message) -> {
                    ShuffleBlockRef block = blocks.get(index);
                    if (message instanceof BlockLocation answer && answer.location() instanceof RouteRefusal refusal) {
                        throw new RouteUnavailableException(route, connection.peer() + " cannot export " + block + " over CUDA IPC: " + refusal.reason(), null);
                    }
                    if (message instanceof BlockLocation answer && answer.location() instanceof IpcLocation location) {
                        landed.add(peerCopy(reader, landing, block, location, route, peer));
                    }
                    else {
                        try (BlockBytes host = ShmBlockFetcher.receive(connection, block, message, staging, staged)) {
                            landed.add(upload(landing, host, block));
                        }
                        counters.recordBlock(Route.HOST_STAGED, landed.get(landed.size() - 1).buffer().length());
                        DeviceRouteFallbacks.record(route, Route.HOST_STAGED, block, peer);
                    }
                    // The exchange's receipt for this block; its bytes are in the landed buffer, not in host memory.
                    return new BlockBytes(staging.getEmpty(), 0);
                });
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

    private static Landed peerCopy(DeviceBlockReader reader, DeviceLanding landing, ShuffleBlockRef block, IpcLocation location, Route route, PeerAddress peer)
            throws IOException
    {
        try {
            // Counted by the reader on the route that carried it: HOST_STAGED when the backend refused the pair.
            DeviceBlockReader.DeviceRead read = reader.readToDeviceOver(IpcLocations.toHandle(location), landing, route);
            return new Landed(block, read.buffer(), read.carried());
        }
        catch (IpcImportRefused e) {
            throw new RouteUnavailableException(route, "this executor " + e.getMessage() + " (block " + block + " of " + peer + ")", e);
        }
        catch (RuntimeException e) {
            throw new IOException("Copying " + block + " from " + peer + " over " + route + " into this executor's GPU: " + e.getMessage(), e);
        }
    }

    private static Landed upload(DeviceLanding landing, BlockBytes host, ShuffleBlockRef block)
    {
        DeviceBuffer target = landing.allocate(host.length());
        boolean success = false;
        try (DeviceStream stream = landing.runtime().newStream(landing.device())) {
            stream.copyFromHost(host.buffer().nioBuffer(0, Math.toIntExact(host.length())), target, 0);
            stream.synchronize();
            success = true;
            return new Landed(block, target, Route.HOST_STAGED);
        }
        finally {
            if (!success) {
                target.close();
            }
        }
    }
}
