package dev.ferry.shuffle.transport.shm;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.List;

import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.FetchedBlocks;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.RouteUnavailableException;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.client.TcpConnection;
import dev.ferry.shuffle.transport.client.TcpShuffleTransport;
import dev.ferry.shuffle.transport.wire.BlockLocation;
import dev.ferry.shuffle.transport.wire.BlockResponse;
import dev.ferry.shuffle.transport.wire.FetchRoute;
import dev.ferry.shuffle.transport.wire.Message;
import dev.ferry.shuffle.transport.wire.ShmLocation;
import dev.ferry.topology.route.Route;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * HOST_SHM's client side: asks a same-node peer to publish the blocks in shared memory and maps
 * (or copies) each out with the reader's {@link ShmBlockReader}; an empty block comes in the stream.
 * A published file this reader cannot see (no shared {@code /dev/shm}) fails the request with a
 * {@link RouteUnavailableException}, so the peer falls back to the stream.
 */
public final class ShmBlockFetcher
{
    private ShmBlockFetcher() {}

    /** The blocks over shared memory on a pooled connection of {@code tcp}, reported as {@code route} (HOST_SHM, or HOST_STAGED for a device peer's). */
    public static FetchedBlocks fetch(TcpShuffleTransport tcp, PeerAddress peer, List<ShuffleBlockRef> blocks, BufferAllocator allocator, String route, ShmBlockReader shm)
            throws IOException
    {
        return tcp.fetch(peer, blocks, route, connection -> connection.exchange(FetchRoute.SHARED_MEMORY, blocks,
                (index, message) -> receive(connection, blocks.get(index), message, allocator, shm)));
    }

    /** One block's answer on a shared-memory route: a {@link ShmLocation} read with {@code shm}, or an empty block in the stream. */
    public static BlockBytes receive(TcpConnection connection, ShuffleBlockRef block, Message message, BufferAllocator allocator, ShmBlockReader shm)
            throws IOException
    {
        if (message instanceof BlockResponse response && response.bodyLength() == 0) {
            return connection.readInline(response, allocator);
        }
        BlockLocation answer = connection.expect(message, BlockLocation.class);
        if (!(answer.location() instanceof ShmLocation location)) {
            throw new IOException("Unexpected " + answer.location().kind() + " location of " + block + " from " + connection.peer() + " on a shared-memory route");
        }
        ShmBlockHandle handle;
        ArrowBuf body;
        try {
            handle = ShmBlockHandle.fromLocation(location);
            // Mapped from the peer's file (or copied, for a small block); ours to release.
            body = shm.open(handle, allocator);
        }
        catch (RuntimeException e) {
            if (notVisible(e)) {
                // The peer holds the file until this request is done, so a missing one is not shared with us (another /dev/shm, another pod).
                throw new RouteUnavailableException(Route.HOST_SHM, "the file " + connection.peer() + " published " + block + " in is not visible here: "
                        + e.getMessage(), e);
            }
            throw new IOException("Reading " + block + " from " + connection.peer() + " in shared memory: " + e.getMessage(), e);
        }
        return new BlockBytes(body, handle.length());
    }

    private static boolean notVisible(Throwable failure)
    {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof NoSuchFileException) {
                return true;
            }
        }
        return false;
    }
}
