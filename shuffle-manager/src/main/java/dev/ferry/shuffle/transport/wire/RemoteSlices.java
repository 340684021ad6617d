package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Where a block lies in the server's memory registered with its NIC: which memory (host, or the
 * GPU's for GPUDIRECT_RDMA), the block's length, the verbs listener to connect to
 * ({@code nicHost:nicPort}) and the remote slices (address, length, rkey) that cover it, in order.
 * Wire: byte memory, long length, short host length, UTF-8 host, int port, int count, then count
 * times (long offset, long address, int length, int rkey).
 */
public record RemoteSlices(Memory memory, long length, String nicHost, int nicPort, List<RemoteSlice> slices)
        implements Location
{
    private static final int SLICE_BYTES = Long.BYTES + Long.BYTES + Integer.BYTES + Integer.BYTES;
    public static final int MAX_HOST_BYTES = 255;

    /** Which memory the slices lie in: it says which route carried the block. */
    public enum Memory
    {
        HOST, DEVICE
    }

    public RemoteSlices
    {
        requireNonNull(memory, "memory is null");
        requireNonNull(nicHost, "nicHost is null");
        slices = List.copyOf(slices);
        if (length < 0 || nicPort <= 0 || nicPort > 65535 || (length == 0) != slices.isEmpty() || nicHost.getBytes(StandardCharsets.UTF_8).length > MAX_HOST_BYTES) {
            throw new IllegalArgumentException("Invalid remote slices: length " + length + ", listener " + nicHost + ":" + nicPort + ", " + slices.size() + " slices");
        }
        long covered = 0;
        for (RemoteSlice slice : slices) {
            if (slice.offset() != covered || slice.length() <= 0) {
                throw new IllegalArgumentException("Remote slices do not cover the block in order at offset " + covered);
            }
            covered += slice.length();
        }
        if (covered != length) {
            throw new IllegalArgumentException("Remote slices cover " + covered + " of " + length + " bytes");
        }
    }

    @Override
    public Kind kind()
    {
        return Kind.REMOTE_SLICES;
    }

    @Override
    public int encodedLength()
    {
        return 1 + Long.BYTES + Short.BYTES + nicHost.getBytes(StandardCharsets.UTF_8).length + Integer.BYTES + Integer.BYTES + slices.size() * SLICE_BYTES;
    }

    @Override
    public void encode(ByteBuffer target)
    {
        byte[] host = nicHost.getBytes(StandardCharsets.UTF_8);
        target.put((byte) memory.ordinal());
        target.putLong(length);
        target.putShort((short) host.length);
        target.put(host);
        target.putInt(nicPort);
        target.putInt(slices.size());
        for (RemoteSlice slice : slices) {
            target.putLong(slice.offset());
            target.putLong(slice.address());
            target.putInt(slice.length());
            target.putInt(slice.rkey());
        }
    }

    public static RemoteSlices decode(ByteBuffer source)
    {
        Encoding.need(source, 1 + Long.BYTES + Short.BYTES, "remote slices header");
        byte memoryId = source.get();
        if (memoryId < 0 || memoryId >= Memory.values().length) {
            throw new IllegalArgumentException("Remote slices name unknown memory " + memoryId);
        }
        long length = source.getLong();
        int hostLength = source.getShort();
        if (hostLength < 0 || hostLength > MAX_HOST_BYTES || hostLength > source.remaining()) {
            throw new IllegalArgumentException("Remote slices claim a " + hostLength + "-byte host name");
        }
        byte[] host = new byte[hostLength];
        source.get(host);
        Encoding.need(source, Integer.BYTES + Integer.BYTES, "remote slices listener port and count");
        int port = source.getInt();
        int count = source.getInt();
        // The count comes off the wire: check it against the bytes actually there before allocating.
        if (count < 0 || (long) count * SLICE_BYTES != source.remaining()) {
            throw new IllegalArgumentException("Remote slices claim " + count + " slices in " + source.remaining() + " bytes");
        }
        List<RemoteSlice> slices = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            slices.add(new RemoteSlice(source.getLong(), source.getLong(), source.getInt(), source.getInt()));
        }
        return new RemoteSlices(Memory.values()[memoryId], length, new String(host, StandardCharsets.UTF_8), port, slices);
    }
}
