package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;

import static java.util.Objects.requireNonNull;

/**
 * Authentication step 2, server to client: the server's fresh nonce, and nothing else. The server
 * proves nothing (no MAC an unauthenticated peer could test guesses of the secret against, no
 * application id) before the client has proved itself. Wire: bytes nonce.
 */
public final class AuthServerChallenge
        implements Message
{
    private final byte[] nonce;

    public AuthServerChallenge(byte[] nonce)
    {
        this.nonce = requireNonNull(nonce, "nonce is null").clone();
    }

    public byte[] nonce()
    {
        return nonce.clone();
    }

    @Override
    public MessageType type()
    {
        return MessageType.AUTH_SERVER_CHALLENGE;
    }

    @Override
    public int encodedLength()
    {
        return Encoding.encodedLength(nonce);
    }

    @Override
    public void encode(ByteBuffer buffer)
    {
        Encoding.writeBytes(buffer, nonce);
    }

    public static AuthServerChallenge decode(ByteBuffer buffer)
    {
        return new AuthServerChallenge(Encoding.readBytes(buffer));
    }

    @Override
    public boolean equals(Object other)
    {
        return other instanceof AuthServerChallenge that && Arrays.equals(nonce, that.nonce);
    }

    @Override
    public int hashCode()
    {
        return Arrays.hashCode(nonce);
    }

    @Override
    public String toString()
    {
        return "AuthServerChallenge[nonce=" + HexFormat.of().formatHex(nonce) + "]";
    }
}
