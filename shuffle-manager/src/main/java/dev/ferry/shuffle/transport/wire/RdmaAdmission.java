package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static java.util.Objects.requireNonNull;

/**
 * Server to reader, in answer to {@link RdmaAdmissionRequest}: a one-time token for one queue pair
 * (random, bound to this TCP session, valid for the server NIC's connect timeout) and the NIC
 * listener to present it to in the connect request's private data. Travels only on the
 * authenticated stream, as the remote slices do. Wire: bytes token, string nicHost, int nicPort.
 */
public final class RdmaAdmission
        implements Message
{
    /** Bytes of a one-time connection token. */
    public static final int TOKEN_BYTES = 32;

    private final byte[] token;
    private final String nicHost;
    private final int nicPort;

    public RdmaAdmission(byte[] token, String nicHost, int nicPort)
    {
        this.token = requireNonNull(token, "token is null").clone();
        this.nicHost = requireNonNull(nicHost, "nicHost is null");
        this.nicPort = nicPort;
        if (token.length != TOKEN_BYTES || nicHost.isEmpty() || nicHost.getBytes(StandardCharsets.UTF_8).length > RdmaAdmissionRequest.MAX_HOST_BYTES
                || nicPort <= 0 || nicPort > 65535) {
            throw new IllegalArgumentException("Invalid RDMA admission: " + token.length + "-byte token, listener " + nicHost + ":" + nicPort);
        }
    }

    /** The token's bytes (a copy); the RDMA route wraps them in its connection token. */
    public byte[] token()
    {
        return token.clone();
    }

    public String nicHost()
    {
        return nicHost;
    }

    public int nicPort()
    {
        return nicPort;
    }

    @Override
    public MessageType type()
    {
        return MessageType.RDMA_ADMISSION;
    }

    @Override
    public int encodedLength()
    {
        return Encoding.encodedLength(token) + Encoding.encodedLength(nicHost) + Integer.BYTES;
    }

    @Override
    public void encode(ByteBuffer buffer)
    {
        Encoding.writeBytes(buffer, token);
        Encoding.writeString(buffer, nicHost);
        buffer.putInt(nicPort);
    }

    public static RdmaAdmission decode(ByteBuffer buffer)
    {
        byte[] token = Encoding.readBytes(buffer);
        String host = Encoding.readString(buffer);
        Encoding.need(buffer, Integer.BYTES, "NIC port");
        return new RdmaAdmission(token, host, buffer.getInt());
    }

    @Override
    public boolean equals(Object other)
    {
        return other instanceof RdmaAdmission that && Arrays.equals(token, that.token) && nicHost.equals(that.nicHost) && nicPort == that.nicPort;
    }

    @Override
    public int hashCode()
    {
        return 31 * (31 * Arrays.hashCode(token) + nicHost.hashCode()) + nicPort;
    }

    @Override
    public String toString()
    {
        // Never the token: it admits a queue pair to whoever holds it.
        return "RdmaAdmission[listener=" + nicHost + ":" + nicPort + "]";
    }
}
