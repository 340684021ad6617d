package dev.ferry.shuffle.transport.rdma.verbs;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;

import dev.ferry.shuffle.transport.wire.RdmaAdmission;

/**
 * A one-time admission for one queue pair, carried in the connect request's private data (RDMA
 * CM's {@code private_data}; the simulated fabric's CM_REQUEST). A server issues it to a reader over
 * the reader's authenticated TCP session ({@link ConnectionAdmissions#issue}); the server's accept
 * loop admits a queue pair only with a token it issued, unused and unexpired.
 */
public final class ConnectionToken
{
    /** Random bytes of a token: 256 bits, so guessing one is out of the question within its lifetime. */
    public static final int BYTES = RdmaAdmission.TOKEN_BYTES;
    /** The most private data an RC connect request carries (RDMA CM: 56 bytes). */
    public static final int MAX_PRIVATE_DATA_BYTES = 56;

    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] bytes;

    public ConnectionToken(byte[] bytes)
    {
        if (bytes == null || bytes.length != BYTES) {
            throw new IllegalArgumentException("A connection token has " + BYTES + " bytes, got " + (bytes == null ? "none" : bytes.length));
        }
        this.bytes = bytes.clone();
    }

    static ConnectionToken random()
    {
        byte[] bytes = new byte[BYTES];
        RANDOM.nextBytes(bytes);
        return new ConnectionToken(bytes);
    }

    /** The private data a connect request carries. */
    public byte[] privateData()
    {
        return bytes.clone();
    }

    String key()
    {
        return HexFormat.of().formatHex(bytes);
    }

    @Override
    public boolean equals(Object other)
    {
        return other instanceof ConnectionToken && Arrays.equals(bytes, ((ConnectionToken) other).bytes);
    }

    @Override
    public int hashCode()
    {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString()
    {
        // Never the bytes: a token in a log line is a token anyone reading the log could use.
        return "connection token";
    }
}
