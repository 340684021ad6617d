package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;

import dev.ferry.shuffle.transport.shm.ShmBlockHandle;

/** Where one requested block was published in shared memory: request, block index and the {@link ShmBlockHandle}'s bytes. */
public record ShmBlockResponse(long requestId, int index, byte[] handle)
        implements Message
{
    private static final String NAME = "shared-memory";

    public ShmBlockResponse
    {
        handle = BlockHandleCodec.checkedCopy(NAME, index, handle);
    }

    public ShmBlockHandle shmHandle()
    {
        return ShmBlockHandle.fromBytes(handle);
    }

    @Override
    public byte[] handle()
    {
        return handle.clone();
    }

    @Override
    public MessageType type()
    {
        return MessageType.SHM_BLOCK_RESPONSE;
    }

    @Override
    public int encodedLength()
    {
        return BlockHandleCodec.encodedLength(handle);
    }

    @Override
    public void encode(ByteBuffer target)
    {
        BlockHandleCodec.encode(target, requestId, index, handle);
    }

    public static ShmBlockResponse decode(ByteBuffer source)
    {
        return BlockHandleCodec.decode(source, NAME, ShmBlockResponse::new);
    }

    /** By value: a record's own equality would compare the handle array by identity. */
    @Override
    public boolean equals(Object other)
    {
        return other instanceof ShmBlockResponse that && BlockHandleCodec.sameResponse(requestId, index, handle, that.requestId, that.index, that.handle);
    }

    @Override
    public int hashCode()
    {
        return BlockHandleCodec.responseHash(requestId, index, handle);
    }

    @Override
    public String toString()
    {
        return "ShmBlockResponse[requestId=" + requestId + ", index=" + index + ", handle=" + handle.length + " bytes]";
    }
}
