package dev.ferry.shuffle.transport.gpurdma;

import java.io.IOException;
import java.util.Optional;

import dev.ferry.device.pool.BlockLease;
import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.rdma.RdmaBlockServer;
import dev.ferry.shuffle.transport.rdma.VerbsBlocks;
import dev.ferry.shuffle.transport.server.HeldBlocks;
import dev.ferry.shuffle.transport.server.RouteServer;
import dev.ferry.shuffle.transport.server.ServedBlocks;
import dev.ferry.shuffle.transport.wire.BlockLocation;
import dev.ferry.shuffle.transport.wire.FetchRequest;
import dev.ferry.shuffle.transport.wire.FrameWriter;
import dev.ferry.shuffle.transport.wire.RouteRefusal;

import static java.util.Objects.requireNonNull;

/**
 * GPUDIRECT_RDMA's server side: a block borrowed from the device store has its device memory
 * registered with the NIC and is answered with {@link dev.ferry.shuffle.transport.wire.RemoteSlices}
 * of device memory; a block the store holds in host memory is registered from there (the slices say
 * host memory, and the reader counts RDMA_HOST_STAGED). GPU memory the NIC refuses to register
 * ({@code ibv_reg_mr}: no peer memory, BAR1 full) is answered with a {@link RouteRefusal}, not a
 * failure: the reader falls back for this peer to RDMA_HOST_STAGED.
 */
public final class GpuRdmaBlockServer
        implements RouteServer
{
    private final VerbsBlocks verbs;
    private final RdmaBlockServer hostBlocks;

    public GpuRdmaBlockServer(VerbsBlocks verbs, RdmaBlockServer hostBlocks)
    {
        this.verbs = requireNonNull(verbs, "verbs is null");
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
                VerbsBlocks.Exported export;
                try {
                    export = verbs.exportDevice(blocks.deviceBlocks().orElseThrow().runtime(), lease.get());
                }
                catch (IOException | RuntimeException e) {
                    // exportDevice released the lease. The block is fine: the reader falls back for this peer to RDMA_HOST_STAGED and asks again.
                    writer.write(new BlockLocation(request.requestId(), index,
                            RouteRefusal.of("Cannot register the GPU memory of " + ref + " with " + verbs.deviceName() + ": " + e.getMessage())));
                    continue;
                }
                held.hold(export);
                writer.write(new BlockLocation(request.requestId(), index, export.slices()));
                continue;
            }
            Optional<BlockBytes> block = blocks.openOrFail(request, index, writer);
            if (block.isPresent()) {
                hostBlocks.registerHost(request, index, block.get(), writer, held);
            }
        }
    }
}
