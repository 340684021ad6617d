package dev.ferry.shuffle.transport.tcp.protocol;

import java.nio.ByteBuffer;

import dev.ferry.device.IpcHandle;

/** Where one requested GPU block can be opened: request, block index and the exported {@link IpcHandle}'s bytes. */
public record IpcBlockResponse(long requestId, int index, byte[] handle)
        implements Message
{
    private static final int MAX_HANDLE_BYTES = 4096;

    public IpcBlockResponse
    {
        if (index < 0 || handle.length == 0 || handle.length > MAX_HANDLE_BYTES) {
            throw new IllegalArgumentException("Invalid IPC block response: index " + index + ", handle of " + handle.length + " bytes");
        }
        handle = handle.clone();
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
        return Long.BYTES + Integer.BYTES + Integer.BYTES + handle.length;
    }

    @Override
    public void encode(ByteBuffer target)
    {
        target.putLong(requestId);
        target.putInt(index);
        target.putInt(handle.length);
        target.put(handle);
    }

    public static IpcBlockResponse decode(ByteBuffer source)
    {
        long requestId = source.getLong();
        int index = source.getInt();
        int length = source.getInt();
        if (length != source.remaining()) {
            throw new IllegalArgumentException("IPC block response claims a " + length + "-byte handle in " + source.remaining() + " bytes");
        }
        byte[] handle = new byte[length];
        source.get(handle);
        return new IpcBlockResponse(requestId, index, handle);
    }
}
