package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A block published in shared memory: the file's name (never a path: the reader resolves it in its
 * own configured directory and checks the name there), where the block starts, how long it is, and,
 * for a range of the writer's reused staging arena, the lease file the reader holds while it uses
 * the range. Wire: short name length, ASCII name, long offset, long length, byte hasLease, then for
 * a lease short length and ASCII name.
 */
public record ShmLocation(String fileName, long offset, long length, Optional<String> leaseName)
        implements Location
{
    /** Longest file name, as a POSIX file system allows. */
    public static final int MAX_NAME_BYTES = 255;

    public ShmLocation
    {
        requireNonNull(fileName, "fileName is null");
        requireNonNull(leaseName, "leaseName is null");
        checkName("file", fileName);
        leaseName.ifPresent(name -> checkName("lease", name));
        if (offset < 0 || length <= 0 || offset > Long.MAX_VALUE - length) {
            throw new IllegalArgumentException("Malformed shared-memory block range [" + offset + ", +" + length + ") of " + fileName);
        }
    }

    @Override
    public Kind kind()
    {
        return Kind.SHARED_MEMORY;
    }

    @Override
    public int encodedLength()
    {
        return Short.BYTES + fileName.length() + Long.BYTES + Long.BYTES + 1 + leaseName.map(name -> Short.BYTES + name.length()).orElse(0);
    }

    @Override
    public void encode(ByteBuffer target)
    {
        writeName(target, fileName);
        target.putLong(offset);
        target.putLong(length);
        target.put((byte) (leaseName.isPresent() ? 1 : 0));
        leaseName.ifPresent(name -> writeName(target, name));
    }

    public static ShmLocation decode(ByteBuffer source)
    {
        String name = readName(source, "file");
        Encoding.need(source, Long.BYTES + Long.BYTES + 1, "shared-memory range");
        long offset = source.getLong();
        long length = source.getLong();
        byte hasLease = source.get();
        if (hasLease != 0 && hasLease != 1) {
            throw new IllegalArgumentException("Shared-memory location lease flag " + hasLease + " is neither 0 nor 1");
        }
        Optional<String> lease = hasLease == 1 ? Optional.of(readName(source, "lease")) : Optional.empty();
        return new ShmLocation(name, offset, length, lease);
    }

    private static void checkName(String what, String name)
    {
        if (name.isEmpty() || name.length() > MAX_NAME_BYTES || !StandardCharsets.US_ASCII.newEncoder().canEncode(name)) {
            throw new IllegalArgumentException("Malformed shared-memory " + what + " name of " + name.length() + " characters");
        }
    }

    private static void writeName(ByteBuffer target, String name)
    {
        target.putShort((short) name.length());
        target.put(name.getBytes(StandardCharsets.US_ASCII));
    }

    private static String readName(ByteBuffer source, String what)
    {
        Encoding.need(source, Short.BYTES, "shared-memory " + what + " name length");
        int length = source.getShort();
        // The length comes off the wire: check it against its limit and the bytes there before allocating.
        if (length <= 0 || length > MAX_NAME_BYTES || length > source.remaining()) {
            throw new IllegalArgumentException("Shared-memory location claims a " + length + "-byte " + what + " name with " + source.remaining() + " bytes left");
        }
        byte[] name = new byte[length];
        source.get(name);
        return new String(name, StandardCharsets.US_ASCII);
    }
}
