package dev.ferry.shuffle.transport.tcp.protocol;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;

import static java.util.Objects.requireNonNull;

/** Authentication step 2, server to client: the server's nonce and its proof of the secret. Wire: bytes nonce, bytes proof. */
public final class AuthServerChallenge
        implements Message
{
    private final byte[] nonce;
    private final byte[] proof;

    public AuthServerChallenge(byte[] nonce, byte[] proof)
    {
        this.nonce = requireNonNull(nonce, "nonce is null").clone();
        this.proof = requireNonNull(proof, "proof is null").clone();
    }

    public byte[] nonce()
    {
        return nonce.clone();
    }

    public byte[] proof()
    {
        return proof.clone();
    }

    @Override
    public MessageType type()
    {
        return MessageType.AUTH_SERVER_CHALLENGE;
    }

    @Override
    public int encodedLength()
    {
        return Encoding.encodedLength(nonce) + Encoding.encodedLength(proof);
    }

    @Override
    public void encode(ByteBuffer buffer)
    {
        Encoding.writeBytes(buffer, nonce);
        Encoding.writeBytes(buffer, proof);
    }

    public static AuthServerChallenge decode(ByteBuffer buffer)
    {
        byte[] nonce = Encoding.readBytes(buffer);
        return new AuthServerChallenge(nonce, Encoding.readBytes(buffer));
    }

    @Override
    public boolean equals(Object other)
    {
        return other instanceof AuthServerChallenge that && Arrays.equals(nonce, that.nonce) && Arrays.equals(proof, that.proof);
    }

    @Override
    public int hashCode()
    {
        return 31 * Arrays.hashCode(nonce) + Arrays.hashCode(proof);
    }

    @Override
    public String toString()
    {
        return "AuthServerChallenge[nonce=" + HexFormat.of().formatHex(nonce) + ", proof=" + HexFormat.of().formatHex(proof) + "]";
    }
}
