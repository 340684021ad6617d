package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;

import dev.ferry.device.IpcHandle;

/** Where one requested GPU block can be opened: request, block index and the exported {@link IpcHandle}'s bytes. */
public record IpcBlockResponse(long requestId, int index, byte[] handle)
        implements Message
{
    private static final String NAME = "IPC";

    public IpcBlockResponse
    {
        handle = BlockHandleCodec.checkedCopy(NAME, index, handle);
    }

    public IpcHandle ipcHandle()
    {
        return IpcHandle.fromBytes(handle);
    }

    @Override
    public byte[] handle()
    {
        return handle.clone();
    }

    @Override
    public MessageType type()
    {
        return MessageType.IPC_BLOCK_RESPONSE;
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

    public static IpcBlockResponse decode(ByteBuffer source)
    {
        return BlockHandleCodec.decode(source, NAME, IpcBlockResponse::new);
    }

    /** By value: a record's own equality would compare the handle array by identity. */
    @Override
    public boolean equals(Object other)
    {
        return other instanceof IpcBlockResponse that && BlockHandleCodec.sameResponse(requestId, index, handle, that.requestId, that.index, that.handle);
    }

    @Override
    public int hashCode()
    {
        return BlockHandleCodec.responseHash(requestId, index, handle);
    }

    @Override
    public String toString()
    {
        return "IpcBlockResponse[requestId=" + requestId + ", index=" + index + ", handle=" + handle.length + " bytes]";
    }
}
