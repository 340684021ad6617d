package dev.ferry.transport.protocol;

import java.nio.ByteBuffer;

/**
 * Something with a fixed binary form. {@link #encode} must write exactly {@link #encodedLength()}
 * bytes; {@link FrameCodec} checks it. Each implementation adds a static {@code decode(ByteBuffer)}.
 *
 * <p>Adding a message: the class, a {@link MessageType} id, a {@link MessageDecoder} case, a line
 * in {@code ProtocolSuite} (round trip and a fixed byte vector).
 */
public interface Encodable
{
    int encodedLength();

    void encode(ByteBuffer buffer);
}
