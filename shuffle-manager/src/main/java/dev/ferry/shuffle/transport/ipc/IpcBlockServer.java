package dev.ferry.shuffle.transport.ipc;

import java.io.IOException;
import java.util.Optional;

import dev.ferry.device.IpcHandle;
import dev.ferry.device.pool.BlockLease;
import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.server.HeldBlocks;
import dev.ferry.shuffle.transport.server.RouteServer;
import dev.ferry.shuffle.transport.server.ServedBlocks;
import dev.ferry.shuffle.transport.shm.ShmBlockServer;
import dev.ferry.shuffle.transport.wire.BlockLocation;
import dev.ferry.shuffle.transport.wire.FetchRequest;
import dev.ferry.shuffle.transport.wire.FrameWriter;
import dev.ferry.shuffle.transport.wire.RouteRefusal;

import static java.util.Objects.requireNonNull;

/**
 * The server side of the device IPC routes (NVLINK / PCIE_P2P): a block borrowed from the device
 * store is answered with its exported CUDA IPC handle ({@link dev.ferry.shuffle.transport.wire.IpcLocation})
 * and lent until the peer's next request; a block the store holds in host memory (spilled, or the
 * store fell back to host) is answered through shared memory, and the location's kind tells the
 * reader so (it counts HOST_STAGED). A block that cannot be exported is answered with a
 * {@link RouteRefusal}, not a failure: the reader falls back to the next route.
 */
public final class IpcBlockServer
        implements RouteServer
{
    private final ShmBlockServer hostBlocks;

    public IpcBlockServer(ShmBlockServer hostBlocks)
    {
        this.hostBlocks = requireNonNull(hostBlocks, "hostBlocks is null");
    }

    @Override
    public void serve(FetchRequest request, ServedBlocks blocks, FrameWriter writer, HeldBlocks held)
            throws IOException
    {
        for (int index = 0; index < request.blocks().size(); index++) {
            ShuffleBlockRef ref = request.ref(index);
            Optional<BlockLease> lease = blocks.borrow(ref);
            if (lease.isPresent()) {
                IpcHandle handle;
                try {
                    handle = blocks.deviceBlocks().orElseThrow().runtime().exportIpc(lease.get().buffer());
                }
                catch (RuntimeException e) {
                    lease.get().close();
                    // The block is fine; the reader falls back for this peer to the next route and asks again.
                    writer.write(new BlockLocation(request.requestId(), index, RouteRefusal.of("Cannot export " + ref + " over CUDA IPC: " + e.getMessage())));
                    continue;
                }
                // Importers hold the exported memory through its IPC lease; ours keeps the block from spilling meanwhile.
                held.hold(lease.get());
                writer.write(new BlockLocation(request.requestId(), index, IpcLocations.toLocation(handle)));
                continue;
            }
            Optional<BlockBytes> block = blocks.openOrFail(request, index, writer);
            if (block.isPresent()) {
                hostBlocks.publish(request, index, block.get(), blocks, writer, held);
            }
        }
    }
}
