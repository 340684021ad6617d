package dev.ferry.shuffle.transport.shm;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Optional;

import dev.ferry.device.DeviceStream;
import dev.ferry.device.pool.BlockLease;
import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.server.HeldBlocks;
import dev.ferry.shuffle.transport.server.RouteServer;
import dev.ferry.shuffle.transport.server.ServedBlocks;
import dev.ferry.shuffle.transport.wire.BlockLocation;
import dev.ferry.shuffle.transport.wire.BlockResponse;
import dev.ferry.shuffle.transport.wire.FetchFailure;
import dev.ferry.shuffle.transport.wire.FetchRequest;
import dev.ferry.shuffle.transport.wire.FrameWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * HOST_SHM's server side: each block answered with its place in shared memory
 * ({@link dev.ferry.shuffle.transport.wire.ShmLocation}), so the bytes never cross the socket; a
 * block still in GPU memory is staged into shared memory first (HOST_STAGED). The files and store
 * blocks are held for the peer until its next request.
 */
public final class ShmBlockServer
        implements RouteServer
{
    private static final Logger LOG = LoggerFactory.getLogger(ShmBlockServer.class);
    private static final int STAGING_BYTES = 1 << 20;
    // One staging buffer per serving thread (a connection is served by one thread at a time), reused for every staged block.
    private static final ThreadLocal<ByteBuffer> STAGING = ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(STAGING_BYTES));

    private final ShmBlockWriter writer;

    public ShmBlockServer(ShmBlockWriter writer)
    {
        this.writer = requireNonNull(writer, "writer is null");
    }

    @Override
    public void serve(FetchRequest request, ServedBlocks blocks, FrameWriter out, HeldBlocks held)
            throws IOException
    {
        for (int index = 0; index < request.blocks().size(); index++) {
            Optional<BlockLease> lease = blocks.borrow(request.ref(index));
            if (lease.isPresent()) {
                try (BlockLease borrowed = lease.get()) {
                    stage(request, index, borrowed, blocks, out, held);
                }
                continue;
            }
            Optional<BlockBytes> block = blocks.openOrFail(request, index, out);
            if (block.isPresent()) {
                publish(request, index, block.get(), blocks, out, held);
            }
        }
    }

    /**
     * HOST_STAGED: a block in GPU memory is copied out chunk by chunk through this connection's
     * reused staging buffer straight into its shared-memory file, one copy of the block on this
     * side (not a copy into a host buffer of the block's size, then another into the file).
     */
    private void stage(FetchRequest request, int index, BlockLease lease, ServedBlocks blocks, FrameWriter out, HeldBlocks held)
            throws IOException
    {
        if (lease.length() == 0) {
            out.write(new BlockResponse(request.requestId(), index, 0), null);
            return;
        }
        ShmBlockHandle handle;
        try (DeviceStream stream = blocks.deviceBlocks().orElseThrow().runtime().newStream(lease.buffer().location().device())) {
            // A copy into a Java buffer is complete when copyToHost returns, so the chunk can be written at once.
            handle = writer.publish(lease.length(), STAGING.get(), (offset, chunk) -> stream.copyToHost(lease.buffer(), offset, chunk));
        }
        catch (RuntimeException e) {
            out.write(new FetchFailure(request.requestId(), index, "Cannot stage " + request.ref(index) + " from GPU memory into shared memory: " + e.getMessage()));
            return;
        }
        held.hold(released(handle));
        out.write(new BlockLocation(request.requestId(), index, handle.toLocation()));
    }

    /**
     * A block the store keeps in shared memory is answered with its place there, and the
     * connection holds the block (so the store cannot delete the file) until the peer's next
     * request or the connection's close; by then the peer has mapped or copied it. Any other block
     * (spilled to disk) is copied into a file of its own first. The IPC route answers a block the
     * peer holds in host memory this way too.
     */
    public void publish(FetchRequest request, int index, BlockBytes block, ServedBlocks blocks, FrameWriter out, HeldBlocks held)
            throws IOException
    {
        if (block.length() == 0) {
            // Shared memory holds no empty files: an empty block is answered in the stream itself.
            block.close();
            out.write(new BlockResponse(request.requestId(), index, 0), null);
            return;
        }
        if (block.sharedAt().isPresent()) {
            held.hold(block);
            out.write(new BlockLocation(request.requestId(), index, block.sharedAt().get().toLocation()));
            return;
        }
        blocks.countPublishedCopy();
        ShmBlockHandle handle;
        try (BlockBytes bytes = block) {
            handle = writer.publish(bytes.buffer().nioBuffer(0, Math.toIntExact(bytes.length())));
        }
        catch (RuntimeException e) {
            out.write(new FetchFailure(request.requestId(), index, "Cannot publish " + request.ref(index) + " in shared memory: " + e.getMessage()));
            return;
        }
        held.hold(released(handle));
        out.write(new BlockLocation(request.requestId(), index, handle.toLocation()));
    }

    private AutoCloseable released(ShmBlockHandle handle)
    {
        return () -> {
            try {
                writer.release(handle);
            }
            catch (RuntimeException e) {
                LOG.debug("Releasing shared-memory block {}: {}", handle.fileName(), e.getMessage());
            }
        };
    }
}
