package dev.ferry.shuffle.transport.tcp;

import java.io.IOException;
import java.util.Optional;

import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.server.HeldBlocks;
import dev.ferry.shuffle.transport.server.RouteServer;
import dev.ferry.shuffle.transport.server.ServedBlocks;
import dev.ferry.shuffle.transport.wire.BlockResponse;
import dev.ferry.shuffle.transport.wire.FetchRequest;
import dev.ferry.shuffle.transport.wire.FrameWriter;

/**
 * The TCP route's server side (TCP, IPOIB_TCP): each block streamed from memory as it is, in the
 * {@link BlockResponse}'s frame; nothing is held past the write. The client side is the transport's
 * own inline fetch ({@code client.TcpConnection#fetchInline}), which every route also uses for the
 * empty blocks that shared memory cannot hold.
 */
public final class InlineBlockServer
        implements RouteServer
{
    @Override
    public void serve(FetchRequest request, ServedBlocks blocks, FrameWriter writer, HeldBlocks held)
            throws IOException
    {
        for (int index = 0; index < request.blocks().size(); index++) {
            Optional<BlockBytes> block = blocks.openOrFail(request, index, writer);
            if (block.isPresent()) {
                try (BlockBytes bytes = block.get()) {
                    writer.write(new BlockResponse(request.requestId(), index, bytes.length()), bytes.buffer());
                }
            }
        }
    }
}
