package dev.ferry.transport.protocol;

import java.nio.ByteBuffer;

/**
 * The frame around a message: {@code int frameLength} (the bytes that follow it), {@code byte type},
 * then the body. Big-endian, like Spark's network-common.
 */
public final class FrameCodec
{
    public static final int LENGTH_BYTES = 4;
    public static final int HEADER_BYTES = LENGTH_BYTES + 1;

    private FrameCodec() {}

    /** The whole frame, ready to write; fails if a message writes other than its declared length (a bug). */
    public static ByteBuffer encode(Message message)
    {
        int bodyLength = message.encodedLength();
        ByteBuffer frame = ByteBuffer.allocate(HEADER_BYTES + bodyLength);
        frame.putInt(1 + bodyLength);
        frame.put(message.type().id());
        message.encode(frame);
        if (frame.position() != frame.capacity()) {
            throw new IllegalStateException(message.type() + " declared " + bodyLength + " bytes but wrote " + (frame.position() - HEADER_BYTES));
        }
        return frame.flip();
    }

    /** Checks a frame length read from the wire against the limit; a bad one means corruption or a foreign peer. */
    public static void checkFrameLength(int frameLength, long maxFrameBytes)
    {
        if (frameLength < 1) {
            throw new IllegalArgumentException("Malformed frame length " + frameLength);
        }
        if (frameLength > maxFrameBytes) {
            throw new IllegalArgumentException("Too large frame: " + frameLength + " bytes (limit " + maxFrameBytes + ", spark.ferry.transport.maxFrameBytes)");
        }
    }

    /** Decodes the bytes after the length field: type id and body. */
    public static Message decodeFrameBody(ByteBuffer typeAndBody)
    {
        Encoding.need(typeAndBody, 1, "message type");
        MessageType type = MessageType.fromId(typeAndBody.get());
        return MessageDecoder.decode(type, typeAndBody.slice());
    }
}
