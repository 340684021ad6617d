package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;

import static java.util.Objects.requireNonNull;

/**
 * As {@link RdmaBlockResponse}, for a block whose registered bytes are the server's GPU memory
 * (GPUDIRECT_RDMA); the same layout under its own type, so the reader knows which route carried it.
 */
public record GpuRdmaBlockResponse(RdmaBlockResponse location)
        implements Message
{
    public GpuRdmaBlockResponse
    {
        requireNonNull(location, "location is null");
    }

    public long requestId()
    {
        return location.requestId();
    }

    public int index()
    {
        return location.index();
    }

    @Override
    public MessageType type()
    {
        return MessageType.GPU_RDMA_BLOCK_RESPONSE;
    }

    @Override
    public int encodedLength()
    {
        return location.encodedLength();
    }

    @Override
    public void encode(ByteBuffer target)
    {
        location.encode(target);
    }
}
