package dev.ferry.shuffle.transport.rdma;

import java.io.IOException;
import java.util.Optional;

import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.server.HeldBlocks;
import dev.ferry.shuffle.transport.server.RouteServer;
import dev.ferry.shuffle.transport.server.ServedBlocks;
import dev.ferry.shuffle.transport.wire.BlockLocation;
import dev.ferry.shuffle.transport.wire.FetchFailure;
import dev.ferry.shuffle.transport.wire.FetchRequest;
import dev.ferry.shuffle.transport.wire.FrameWriter;

import static java.util.Objects.requireNonNull;

/**
 * RDMA's server side: each block registered with this executor's NIC and answered with its
 * {@link dev.ferry.shuffle.transport.wire.RemoteSlices} of host memory, for the reader to READ
 * one-sidedly; the registration is held until the peer's next request.
 */
public final class RdmaBlockServer
        implements RouteServer
{
    private final VerbsBlocks verbs;

    public RdmaBlockServer(VerbsBlocks verbs)
    {
        this.verbs = requireNonNull(verbs, "verbs is null");
    }

    @Override
    public void serve(FetchRequest request, ServedBlocks blocks, FrameWriter writer, HeldBlocks held)
            throws IOException
    {
        for (int index = 0; index < request.blocks().size(); index++) {
            Optional<BlockBytes> block = blocks.openOrFail(request, index, writer);
            if (block.isPresent()) {
                registerHost(request, index, block.get(), writer, held);
            }
        }
    }

    /** Registers a host block (taking ownership) and answers its slices; GPUDIRECT_RDMA answers a block the peer holds in host memory so too. */
    public void registerHost(FetchRequest request, int index, BlockBytes block, FrameWriter writer, HeldBlocks held)
            throws IOException
    {
        VerbsBlocks.Exported export;
        try {
            export = verbs.export(block);
        }
        catch (IOException | RuntimeException e) {
            writer.write(new FetchFailure(request.requestId(), index, "Cannot register " + request.ref(index) + " with " + verbs.deviceName() + ": " + e.getMessage()));
            return;
        }
        held.hold(export);
        writer.write(new BlockLocation(request.requestId(), index, export.slices()));
    }
}
