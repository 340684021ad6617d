package dev.ferry.shuffle.transport.tcp.protocol;

import java.nio.ByteBuffer;

import dev.ferry.transport.local.ShmBlockHandle;

/** Where one requested block was published in shared memory: request, block index and the {@link ShmBlockHandle}'s bytes. */
public record ShmBlockResponse(long requestId, int index, byte[] handle)
        implements Message
{
    private static final int MAX_HANDLE_BYTES = 4096;

    public ShmBlockResponse
    {
        if (index < 0 || handle.length == 0 || handle.length > MAX_HANDLE_BYTES) {
            throw new IllegalArgumentException("Invalid shared-memory block response: index " + index + ", handle of " + handle.length + " bytes");
        }
        handle = handle.clone();
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

    public static ShmBlockResponse decode(ByteBuffer source)
    {
        long requestId = source.getLong();
        int index = source.getInt();
        int length = source.getInt();
        if (length != source.remaining()) {
            throw new IllegalArgumentException("Shared-memory block response claims a " + length + "-byte handle in " + source.remaining() + " bytes");
        }
        byte[] handle = new byte[length];
        source.get(handle);
        return new ShmBlockResponse(requestId, index, handle);
    }
}
