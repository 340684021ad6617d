package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;
import java.util.List;

import dev.ferry.shuffle.transport.ShuffleBlockRef;

/**
 * Asks a peer on the same node for GPU-resident blocks over CUDA IPC (NVLINK, PCIE_P2P): the server
 * lends each block's device buffer from its store and answers an {@link IpcBlockResponse} with the
 * exported IPC handle; a block no longer on its GPU (spilled) is staged through shared memory
 * instead and answered with a {@link ShmBlockResponse} (HOST_STAGED); {@link FetchFailure} when it
 * cannot be served. One answer per block, in order. Exports and leases of the previous request on a
 * connection are released when the reader says it is done ({@link FetchDone}), sends its next request, or the connection closes.
 */
public record IpcFetchRequest(FetchRequest blocks)
        implements BlockListRequest
{
    public static IpcFetchRequest of(long requestId, List<ShuffleBlockRef> refs)
    {
        return new IpcFetchRequest(FetchRequest.of(requestId, refs));
    }

    @Override
    public MessageType type()
    {
        return MessageType.IPC_FETCH_REQUEST;
    }

    public static IpcFetchRequest decode(ByteBuffer source)
    {
        return new IpcFetchRequest(FetchRequest.decode(source));
    }
}
