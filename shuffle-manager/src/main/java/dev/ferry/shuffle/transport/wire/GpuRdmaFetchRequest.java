package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;
import java.util.List;

import dev.ferry.shuffle.transport.ShuffleBlockRef;

/**
 * Asks a peer on another node for GPU-resident blocks by GPUDirect RDMA: the server lends each
 * block's device buffer from its store, registers that device memory with its NIC and answers a
 * {@link GpuRdmaBlockResponse}; a block no longer on its GPU (spilled) is registered from host
 * memory instead and answered with an {@link RdmaBlockResponse} (RDMA_HOST_STAGED);
 * {@link FetchFailure} when it cannot be served. One answer per block, in order. Registrations and
 * leases of the previous request are released when the reader says it is done ({@link FetchDone}), sends its next request, or the connection closes.
 */
public record GpuRdmaFetchRequest(FetchRequest blocks)
        implements BlockListRequest
{
    public static GpuRdmaFetchRequest of(long requestId, List<ShuffleBlockRef> refs)
    {
        return new GpuRdmaFetchRequest(FetchRequest.of(requestId, refs));
    }

    @Override
    public MessageType type()
    {
        return MessageType.GPU_RDMA_FETCH_REQUEST;
    }

    public static GpuRdmaFetchRequest decode(ByteBuffer source)
    {
        return new GpuRdmaFetchRequest(FetchRequest.decode(source));
    }
}
