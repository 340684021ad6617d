package dev.ferry.transport.protocol;

import java.nio.ByteBuffer;

/** Decodes a message body of a known type; the body must be consumed exactly. */
public final class MessageDecoder
{
    private MessageDecoder() {}

    public static Message decode(MessageType type, ByteBuffer body)
    {
        Message message = switch (type) {
            case BLOCK_LOCATIONS_REQUEST -> BlockLocationsRequest.decode(body);
            case BLOCK_LOCATIONS_RESPONSE -> BlockLocationsResponse.decode(body);
            case ERROR_RESPONSE -> ErrorResponse.decode(body);
            case AUTH_CLIENT_HELLO -> AuthClientHello.decode(body);
            case AUTH_SERVER_CHALLENGE -> AuthServerChallenge.decode(body);
            case AUTH_CLIENT_PROOF -> AuthClientProof.decode(body);
        };
        if (body.hasRemaining()) {
            throw new IllegalArgumentException("Malformed " + type + ": " + body.remaining() + " trailing bytes");
        }
        return message;
    }
}
