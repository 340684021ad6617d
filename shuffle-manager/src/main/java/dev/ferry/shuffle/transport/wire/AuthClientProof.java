package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;

import static java.util.Objects.requireNonNull;

/** Authentication step 3, client to server: the client's proof of the secret over the application id, both nonces and its public key. Wire: bytes proof. */
public final class AuthClientProof
        implements Message
{
    private final byte[] proof;

    public AuthClientProof(byte[] proof)
    {
        this.proof = requireNonNull(proof, "proof is null").clone();
    }

    public byte[] proof()
    {
        return proof.clone();
    }

    @Override
    public MessageType type()
    {
        return MessageType.AUTH_CLIENT_PROOF;
    }

    @Override
    public int encodedLength()
    {
        return Encoding.encodedLength(proof);
    }

    @Override
    public void encode(ByteBuffer buffer)
    {
        Encoding.writeBytes(buffer, proof);
    }

    public static AuthClientProof decode(ByteBuffer buffer)
    {
        return new AuthClientProof(Encoding.readBytes(buffer));
    }

    @Override
    public boolean equals(Object other)
    {
        return other instanceof AuthClientProof that && Arrays.equals(proof, that.proof);
    }

    @Override
    public int hashCode()
    {
        return Arrays.hashCode(proof);
    }

    @Override
    public String toString()
    {
        return "AuthClientProof[proof=" + HexFormat.of().formatHex(proof) + "]";
    }
}
