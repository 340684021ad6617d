package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;
import java.util.List;

import dev.ferry.shuffle.transport.ShuffleBlockRef;

/**
 * Asks a peer on another node to register blocks with its NIC for one-sided RDMA READs; the server
 * answers one {@link RdmaBlockResponse} (where the block's bytes are registered) or
 * {@link FetchFailure} per block, in order. The blocks are laid out like a {@link FetchRequest}'s.
 * What the server registered for the previous request on a connection is deregistered when the
 * reader says it is done ({@link FetchDone}), sends its next request, or the connection closes.
 */
public record RdmaFetchRequest(FetchRequest blocks)
        implements BlockListRequest
{
    public static RdmaFetchRequest of(long requestId, List<ShuffleBlockRef> refs)
    {
        return new RdmaFetchRequest(FetchRequest.of(requestId, refs));
    }

    @Override
    public MessageType type()
    {
        return MessageType.RDMA_FETCH_REQUEST;
    }

    public static RdmaFetchRequest decode(ByteBuffer source)
    {
        return new RdmaFetchRequest(FetchRequest.decode(source));
    }
}
