package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;

import static java.util.Objects.requireNonNull;

/**
 * Authentication step 4, server to client, sent only after the client's proof checked out: the
 * server's ephemeral X25519 public key and its proof of the secret over the whole handshake (both
 * nonces, both public keys), which the client checks before it sends a request. Wire: bytes publicKey, bytes proof.
 */
public final class AuthServerProof
        implements Message
{
    private final byte[] publicKey;
    private final byte[] proof;

    public AuthServerProof(byte[] publicKey, byte[] proof)
    {
        this.publicKey = requireNonNull(publicKey, "publicKey is null").clone();
        this.proof = requireNonNull(proof, "proof is null").clone();
    }

    public byte[] publicKey()
    {
        return publicKey.clone();
    }

    public byte[] proof()
    {
        return proof.clone();
    }

    @Override
    public MessageType type()
    {
        return MessageType.AUTH_SERVER_PROOF;
    }

    @Override
    public int encodedLength()
    {
        return Encoding.encodedLength(publicKey) + Encoding.encodedLength(proof);
    }

    @Override
    public void encode(ByteBuffer buffer)
    {
        Encoding.writeBytes(buffer, publicKey);
        Encoding.writeBytes(buffer, proof);
    }

    public static AuthServerProof decode(ByteBuffer buffer)
    {
        byte[] publicKey = Encoding.readBytes(buffer);
        return new AuthServerProof(publicKey, Encoding.readBytes(buffer));
    }

    @Override
    public boolean equals(Object other)
    {
        return other instanceof AuthServerProof that && Arrays.equals(publicKey, that.publicKey) && Arrays.equals(proof, that.proof);
    }

    @Override
    public int hashCode()
    {
        return 31 * Arrays.hashCode(publicKey) + Arrays.hashCode(proof);
    }

    @Override
    public String toString()
    {
        return "AuthServerProof[publicKey=" + HexFormat.of().formatHex(publicKey) + ", proof=" + HexFormat.of().formatHex(proof) + "]";
    }
}
