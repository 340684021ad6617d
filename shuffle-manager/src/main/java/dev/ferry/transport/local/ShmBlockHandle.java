package dev.ferry.transport.local;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static java.util.Objects.requireNonNull;

/**
 * Names a host block published in shared memory: the file's name (never a path: the reader
 * resolves it in its own configured directory), where the block starts and how long it is.
 * Wire: short name length, ASCII name, long offset, long length.
 */
public record ShmBlockHandle(String fileName, long offset, long length)
{
    public ShmBlockHandle
    {
        requireNonNull(fileName, "fileName is null");
        ShmNames.checkName(fileName);
        if (offset < 0 || length <= 0 || offset > Long.MAX_VALUE - length) {
            throw new IllegalArgumentException("Malformed shared-memory block range [" + offset + ", +" + length + ") of " + fileName);
        }
    }

    public byte[] toBytes()
    {
        byte[] name = fileName.getBytes(StandardCharsets.US_ASCII);
        return ByteBuffer.allocate(2 + name.length + 16).putShort((short) name.length).put(name).putLong(offset).putLong(length).array();
    }

    public static ShmBlockHandle fromBytes(byte[] bytes)
    {
        try {
            ByteBuffer buffer = ByteBuffer.wrap(requireNonNull(bytes, "bytes is null"));
            int nameLength = buffer.getShort();
            if (nameLength < 0 || nameLength > 255) {
                throw new IllegalArgumentException("name length " + nameLength);
            }
            byte[] name = new byte[nameLength];
            buffer.get(name);
            ShmBlockHandle handle = new ShmBlockHandle(new String(name, StandardCharsets.US_ASCII), buffer.getLong(), buffer.getLong());
            if (buffer.hasRemaining()) {
                throw new IllegalArgumentException(buffer.remaining() + " trailing bytes");
            }
            return handle;
        }
        catch (RuntimeException e) {
            throw new IllegalArgumentException("Malformed shared-memory block handle: " + e.getMessage(), e);
        }
    }
}
