package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;

import static java.util.Objects.requireNonNull;

/**
 * Authentication step 1, client to server: the client's nonce and its ephemeral X25519 public key.
 * It names no application and proves nothing yet. Wire: bytes nonce, bytes publicKey.
 */
public final class AuthClientHello
        implements Message
{
    private final byte[] nonce;
    private final byte[] publicKey;

    public AuthClientHello(byte[] nonce, byte[] publicKey)
    {
        this.nonce = requireNonNull(nonce, "nonce is null").clone();
        this.publicKey = requireNonNull(publicKey, "publicKey is null").clone();
    }

    public byte[] nonce()
    {
        return nonce.clone();
    }

    public byte[] publicKey()
    {
        return publicKey.clone();
    }

    @Override
    public MessageType type()
    {
        return MessageType.AUTH_CLIENT_HELLO;
    }

    @Override
    public int encodedLength()
    {
        return Encoding.encodedLength(nonce) + Encoding.encodedLength(publicKey);
    }

    @Override
    public void encode(ByteBuffer buffer)
    {
        Encoding.writeBytes(buffer, nonce);
        Encoding.writeBytes(buffer, publicKey);
    }

    public static AuthClientHello decode(ByteBuffer buffer)
    {
        byte[] nonce = Encoding.readBytes(buffer);
        return new AuthClientHello(nonce, Encoding.readBytes(buffer));
    }

    @Override
    public boolean equals(Object other)
    {
        return other instanceof AuthClientHello that && Arrays.equals(nonce, that.nonce) && Arrays.equals(publicKey, that.publicKey);
    }

    @Override
    public int hashCode()
    {
        return 31 * Arrays.hashCode(nonce) + Arrays.hashCode(publicKey);
    }

    @Override
    public String toString()
    {
        return "AuthClientHello[nonce=" + HexFormat.of().formatHex(nonce) + ", publicKey=" + HexFormat.of().formatHex(publicKey) + "]";
    }
}
