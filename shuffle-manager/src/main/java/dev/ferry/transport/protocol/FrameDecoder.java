package dev.ferry.transport.protocol;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns a byte stream, arriving in pieces of any size, into messages. A frame longer than the
 * limit is refused as soon as its length arrives ("Too large frame"), before anything is buffered.
 * Not thread-safe (one per connection).
 */
public final class FrameDecoder
{
    private final long maxFrameBytes;
    private final ByteBuffer lengthBytes = ByteBuffer.allocate(FrameCodec.LENGTH_BYTES);
    private ByteBuffer frame;

    public FrameDecoder(long maxFrameBytes)
    {
        if (maxFrameBytes < 1) {
            throw new IllegalArgumentException("frame limit must be positive: " + maxFrameBytes);
        }
        this.maxFrameBytes = maxFrameBytes;
    }

    /** Consumes all of {@code bytes} and returns every message completed by them, in order. */
    public List<Message> feed(ByteBuffer bytes)
    {
        List<Message> messages = new ArrayList<>();
        while (bytes.hasRemaining()) {
            if (frame == null) {
                while (lengthBytes.hasRemaining() && bytes.hasRemaining()) {
                    lengthBytes.put(bytes.get());
                }
                if (lengthBytes.hasRemaining()) {
                    break;
                }
                int frameLength = lengthBytes.flip().getInt();
                lengthBytes.clear();
                FrameCodec.checkFrameLength(frameLength, maxFrameBytes);
                frame = ByteBuffer.allocate(frameLength);
            }
            int count = Math.min(frame.remaining(), bytes.remaining());
            frame.put(bytes.slice(bytes.position(), count));
            bytes.position(bytes.position() + count);
            if (!frame.hasRemaining()) {
                messages.add(FrameCodec.decodeFrameBody(frame.flip()));
                frame = null;
            }
        }
        return messages;
    }

    /** Whether a frame is partly received (the stream ended mid-frame if it closes now). */
    public boolean hasPartialFrame()
    {
        return frame != null || lengthBytes.position() > 0;
    }
}
