package dev.ferry.shuffle.transport.rdma;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.BlockFetchException;
import dev.ferry.shuffle.transport.FetchedBlocks;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.client.TcpConnection;
import dev.ferry.shuffle.transport.client.TcpShuffleTransport;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsConnection;
import dev.ferry.shuffle.transport.wire.BlockLocation;
import dev.ferry.shuffle.transport.wire.FetchRoute;
import dev.ferry.shuffle.transport.wire.Message;
import dev.ferry.shuffle.transport.wire.RdmaAdmission;
import dev.ferry.shuffle.transport.wire.RdmaAdmissionRequest;
import dev.ferry.shuffle.transport.wire.RemoteSlices;
import org.apache.arrow.memory.BufferAllocator;

/**
 * RDMA's client side: asks a peer on another node to register the blocks with its NIC and READs
 * each with this executor's {@link VerbsBlocks}; the socket carries only the request and the slices.
 */
public final class RdmaBlockFetcher
{
    private RdmaBlockFetcher() {}

    /** Blocks of another node's peer by one-sided RDMA READs, reported as {@code route} (RDMA, or RDMA_HOST_STAGED for a device peer's). */
    public static FetchedBlocks fetch(TcpShuffleTransport tcp, PeerAddress peer, List<ShuffleBlockRef> blocks, BufferAllocator allocator, String route, VerbsBlocks verbs)
            throws IOException
    {
        return tcp.fetch(peer, blocks, route, connection -> {
            VerbsConnection nic = verbsConnection(connection, verbs);
            boolean healthy = false;
            try {
                List<BlockBytes> received = connection.exchange(FetchRoute.RDMA, blocks, (index, message) -> {
                    RemoteSlices slices = slices(connection, blocks.get(index), message);
                    try {
                        return verbs.read(slices, allocator, nic);
                    }
                    catch (IOException | RuntimeException e) {
                        throw new IOException("RDMA READ of " + blocks.get(index) + " from " + connection.peer() + " failed: " + e.getMessage(), e);
                    }
                });
                healthy = true;
                return received;
            }
            finally {
                verbs.release(nic, healthy);
            }
        });
    }

    /** The remote slices a block's answer names, or an error naming the block and the peer. */
    public static RemoteSlices slices(TcpConnection connection, ShuffleBlockRef block, Message message)
            throws IOException
    {
        BlockLocation answer = connection.expect(message, BlockLocation.class);
        if (!(answer.location() instanceof RemoteSlices slices)) {
            throw new IOException("Unexpected " + answer.location().kind() + " location of " + block + " from " + connection.peer() + " on an RDMA route");
        }
        return slices;
    }

    /**
     * A verbs connection to the peer's NIC: a pooled one, or one the peer admits now. The admission
     * is asked for on this connection, between requests, so only an authenticated peer (with
     * spark.authenticate) hands out a token, and only over the encrypted stream (with crypto on).
     */
    public static VerbsConnection verbsConnection(TcpConnection connection, VerbsBlocks verbs)
            throws IOException
    {
        VerbsConnection nic;
        try {
            nic = verbs.connection(connection.peerNic(),
                    readerNicHost -> connection.expect(connection.call(new RdmaAdmissionRequest(readerNicHost)), RdmaAdmission.class));
        }
        catch (IOException e) {
            throw new BlockFetchException(connection.peer(), Optional.empty(), "RDMA connection setup with " + connection.peer() + " failed: " + e.getMessage(), e);
        }
        connection.peerNic(nic.peer());
        verbs.bindExecutor(connection.peer().executorId(), nic.peer());
        return nic;
    }
}
