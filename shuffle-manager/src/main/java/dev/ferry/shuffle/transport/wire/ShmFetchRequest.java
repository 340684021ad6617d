package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;
import java.util.List;

import dev.ferry.shuffle.transport.ShuffleBlockRef;

/**
 * Asks a peer on the same node to publish blocks in shared memory (HOST_SHM); the server answers one
 * {@link ShmBlockResponse} or {@link FetchFailure} per block, in order. The blocks are laid out like a
 * {@link FetchRequest}'s. What the server published for the previous request on a connection is
 * released when the reader says it is done ({@link FetchDone}), sends its next request, or the connection closes.
 */
public record ShmFetchRequest(FetchRequest blocks)
        implements BlockListRequest
{
    public static ShmFetchRequest of(long requestId, List<ShuffleBlockRef> refs)
    {
        return new ShmFetchRequest(FetchRequest.of(requestId, refs));
    }

    @Override
    public MessageType type()
    {
        return MessageType.SHM_FETCH_REQUEST;
    }

    public static ShmFetchRequest decode(ByteBuffer source)
    {
        return new ShmFetchRequest(FetchRequest.decode(source));
    }
}
