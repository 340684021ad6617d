package dev.ferry.shuffle.transport.shm;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Names a host block published in shared memory: the file's name (never a path: the reader
 * resolves it in its own configured directory), where the block starts and how long it is, and,
 * for a range of the writer's reused staging arena, the name of the lease file the reader must hold
 * while it uses the range (the writer reuses the range only once no reader holds it).
 * Wire: short name length, ASCII name, long offset, long length, then for a leased range short
 * lease-name length and ASCII lease name.
 */
public record ShmBlockHandle(String fileName, long offset, long length, Optional<String> leaseName)
{
    public ShmBlockHandle(String fileName, long offset, long length)
    {
        this(fileName, offset, length, Optional.empty());
    }

    public ShmBlockHandle
    {
        requireNonNull(fileName, "fileName is null");
        requireNonNull(leaseName, "leaseName is null");
        ShmNames.checkName(fileName);
        leaseName.ifPresent(ShmNames::checkName);
        if (leaseName.isPresent() && !ShmNames.isLease(leaseName.get())) {
            throw new IllegalArgumentException("Not a lease file name: '" + leaseName.get() + "'");
        }
        if (offset < 0 || length <= 0 || offset > Long.MAX_VALUE - length) {
            throw new IllegalArgumentException("Malformed shared-memory block range [" + offset + ", +" + length + ") of " + fileName);
        }
    }

    public byte[] toBytes()
    {
        byte[] name = fileName.getBytes(StandardCharsets.US_ASCII);
        byte[] lease = leaseName.map(value -> value.getBytes(StandardCharsets.US_ASCII)).orElse(null);
        ByteBuffer bytes = ByteBuffer.allocate(2 + name.length + 16 + (lease == null ? 0 : 2 + lease.length));
        bytes.putShort((short) name.length).put(name).putLong(offset).putLong(length);
        if (lease != null) {
            bytes.putShort((short) lease.length).put(lease);
        }
        return bytes.array();
    }

    public static ShmBlockHandle fromBytes(byte[] bytes)
    {
        try {
            ByteBuffer buffer = ByteBuffer.wrap(requireNonNull(bytes, "bytes is null"));
            String name = name(buffer);
            long offset = buffer.getLong();
            long length = buffer.getLong();
            Optional<String> lease = buffer.hasRemaining() ? Optional.of(name(buffer)) : Optional.empty();
            ShmBlockHandle handle = new ShmBlockHandle(name, offset, length, lease);
            if (buffer.hasRemaining()) {
                throw new IllegalArgumentException(buffer.remaining() + " trailing bytes");
            }
            return handle;
        }
        catch (RuntimeException e) {
            throw new IllegalArgumentException("Malformed shared-memory block handle: " + e.getMessage(), e);
        }
    }

    private static String name(ByteBuffer buffer)
    {
        int nameLength = buffer.getShort();
        if (nameLength < 0 || nameLength > 255) {
            throw new IllegalArgumentException("name length " + nameLength);
        }
        byte[] name = new byte[nameLength];
        buffer.get(name);
        return new String(name, StandardCharsets.US_ASCII);
    }
}
