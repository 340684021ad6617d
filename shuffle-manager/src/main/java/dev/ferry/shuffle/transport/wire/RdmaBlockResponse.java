package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import dev.ferry.shuffle.transport.wire.RemoteSlice;

import static java.util.Objects.requireNonNull;

/**
 * Where one requested block lies in the server's registered memory: its length, the verbs
 * listener to connect to ({@code nicHost:nicPort}) and the remote slices (address, length, rkey)
 * that cover it, in order.
 */
public record RdmaBlockResponse(long requestId, int index, long length, String nicHost, int nicPort, List<RemoteSlice> slices)
        implements Message
{
    private static final int SLICE_BYTES = Long.BYTES + Long.BYTES + Integer.BYTES + Integer.BYTES;
    private static final int MAX_HOST_BYTES = 255;

    public RdmaBlockResponse
    {
        requireNonNull(nicHost, "nicHost is null");
        slices = List.copyOf(slices);
        if (index < 0 || length < 0 || nicPort <= 0 || nicPort > 65535 || (length == 0) != slices.isEmpty() || nicHost.getBytes(StandardCharsets.UTF_8).length > MAX_HOST_BYTES) {
            throw new IllegalArgumentException("Invalid RDMA block response: index " + index + ", length " + length + ", listener " + nicHost + ":" + nicPort
                    + ", " + slices.size() + " slices");
        }
        long covered = 0;
        for (RemoteSlice slice : slices) {
            if (slice.offset() != covered || slice.length() <= 0) {
                throw new IllegalArgumentException("RDMA block response slices do not cover the block in order at offset " + covered);
            }
            covered += slice.length();
        }
        if (covered != length) {
            throw new IllegalArgumentException("RDMA block response slices cover " + covered + " of " + length + " bytes");
        }
    }

    @Override
    public MessageType type()
    {
        return MessageType.RDMA_BLOCK_RESPONSE;
    }

    @Override
    public int encodedLength()
    {
        return Long.BYTES + Integer.BYTES + Long.BYTES + Short.BYTES + nicHost.getBytes(StandardCharsets.UTF_8).length + Integer.BYTES + Integer.BYTES
                + slices.size() * SLICE_BYTES;
    }

    @Override
    public void encode(ByteBuffer target)
    {
        byte[] host = nicHost.getBytes(StandardCharsets.UTF_8);
        target.putLong(requestId);
        target.putInt(index);
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

    public static RdmaBlockResponse decode(ByteBuffer source)
    {
        long requestId = source.getLong();
        int index = source.getInt();
        long length = source.getLong();
        int hostLength = source.getShort();
        if (hostLength < 0 || hostLength > MAX_HOST_BYTES || hostLength > source.remaining()) {
            throw new IllegalArgumentException("RDMA block response claims a " + hostLength + "-byte host name");
        }
        byte[] host = new byte[hostLength];
        source.get(host);
        int port = source.getInt();
        int count = source.getInt();
        // The count comes off the wire: check it against the bytes actually there before allocating.
        if (count < 0 || (long) count * SLICE_BYTES != source.remaining()) {
            throw new IllegalArgumentException("RDMA block response claims " + count + " slices in " + source.remaining() + " bytes");
        }
        List<RemoteSlice> slices = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            slices.add(new RemoteSlice(source.getLong(), source.getLong(), source.getInt(), source.getInt()));
        }
        return new RdmaBlockResponse(requestId, index, length, new String(host, StandardCharsets.UTF_8), port, slices);
    }
}
