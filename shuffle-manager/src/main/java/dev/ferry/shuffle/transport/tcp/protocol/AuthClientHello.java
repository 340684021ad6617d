package dev.ferry.shuffle.transport.tcp.protocol;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;

import static java.util.Objects.requireNonNull;

/** Authentication step 1, client to server: the application id and the client's nonce. Wire: string appId, bytes nonce. */
public final class AuthClientHello
        implements Message
{
    private final String appId;
    private final byte[] nonce;

    public AuthClientHello(String appId, byte[] nonce)
    {
        this.appId = requireNonNull(appId, "appId is null");
        this.nonce = requireNonNull(nonce, "nonce is null").clone();
    }

    public String appId()
    {
        return appId;
    }

    public byte[] nonce()
    {
        return nonce.clone();
    }

    @Override
    public MessageType type()
    {
        return MessageType.AUTH_CLIENT_HELLO;
    }

    @Override
    public int encodedLength()
    {
        return Encoding.encodedLength(appId) + Encoding.encodedLength(nonce);
    }

    @Override
    public void encode(ByteBuffer buffer)
    {
        Encoding.writeString(buffer, appId);
        Encoding.writeBytes(buffer, nonce);
    }

    public static AuthClientHello decode(ByteBuffer buffer)
    {
        String appId = Encoding.readString(buffer);
        return new AuthClientHello(appId, Encoding.readBytes(buffer));
    }

    @Override
    public boolean equals(Object other)
    {
        return other instanceof AuthClientHello that && appId.equals(that.appId) && Arrays.equals(nonce, that.nonce);
    }

    @Override
    public int hashCode()
    {
        return 31 * appId.hashCode() + Arrays.hashCode(nonce);
    }

    @Override
    public String toString()
    {
        return "AuthClientHello[appId=" + appId + ", nonce=" + HexFormat.of().formatHex(nonce) + "]";
    }
}
