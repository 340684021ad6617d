package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static java.util.Objects.requireNonNull;

/**
 * Reader to server, over the authenticated (and, with crypto on, encrypted) TCP session: admit one
 * queue pair of mine at your NIC. {@code readerNicHost} is the address the reader's NIC connects
 * from, bound into the admission. Answered by {@link RdmaAdmission} or, where the server has no NIC,
 * the connection closes. Wire: string readerNicHost.
 */
public record RdmaAdmissionRequest(String readerNicHost)
        implements Request
{
    /** A host address, not a message: as long as the host field of a block location. */
    static final int MAX_HOST_BYTES = 255;

    public RdmaAdmissionRequest
    {
        requireNonNull(readerNicHost, "readerNicHost is null");
        if (readerNicHost.isEmpty() || readerNicHost.getBytes(StandardCharsets.UTF_8).length > MAX_HOST_BYTES) {
            throw new IllegalArgumentException("Invalid reader NIC host in an RDMA admission request: '" + readerNicHost + "'");
        }
    }

    @Override
    public MessageType type()
    {
        return MessageType.RDMA_ADMISSION_REQUEST;
    }

    @Override
    public int encodedLength()
    {
        return Encoding.encodedLength(readerNicHost);
    }

    @Override
    public void encode(ByteBuffer buffer)
    {
        Encoding.writeString(buffer, readerNicHost);
    }

    public static RdmaAdmissionRequest decode(ByteBuffer buffer)
    {
        return new RdmaAdmissionRequest(Encoding.readString(buffer));
    }
}
