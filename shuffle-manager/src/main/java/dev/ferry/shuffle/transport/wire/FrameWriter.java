package dev.ferry.shuffle.transport.wire;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;

import org.apache.arrow.memory.ArrowBuf;

import static java.util.Objects.requireNonNull;

/** Writes frames: length, type, header, and for a block its bytes straight from (off-heap) memory. Not thread-safe. */
public final class FrameWriter
{
    private static final int COPY_CHUNK = 64 * 1024;

    private final OutputStream out;
    private final byte[] chunk = new byte[COPY_CHUNK];

    public FrameWriter(OutputStream out)
    {
        this.out = requireNonNull(out, "out is null");
    }

    public void write(Message message)
            throws IOException
    {
        writeHeader(message, 0);
    }

    /** A {@link BlockResponse} followed by its body. */
    public void write(BlockResponse response, ArrowBuf body)
            throws IOException
    {
        writeHeader(response, response.bodyLength());
        long offset = 0;
        while (offset < response.bodyLength()) {
            int length = (int) Math.min(chunk.length, response.bodyLength() - offset);
            body.getBytes(offset, chunk, 0, length);
            out.write(chunk, 0, length);
            offset += length;
        }
    }

    private void writeHeader(Message message, long bodyLength)
            throws IOException
    {
        long frameLength = 1L + message.encodedLength() + bodyLength;
        if (frameLength > Integer.MAX_VALUE) {
            throw new IOException("Frame of " + frameLength + " bytes is too large");
        }
        // The peer refuses a frame over its type's limit; fail here, naming it, rather than there.
        long limit = message.type().maxFrameBytes(Integer.MAX_VALUE);
        if (frameLength > limit) {
            throw new IOException(message.type() + " frame of " + frameLength + " bytes exceeds its limit of " + limit + " bytes");
        }
        ByteBuffer header = ByteBuffer.allocate(Integer.BYTES + 1 + message.encodedLength());
        header.putInt((int) frameLength);
        header.put(message.type().id());
        message.encode(header);
        if (header.hasRemaining()) {
            throw new IllegalStateException(message.type() + " wrote " + header.position() + " bytes, not " + header.capacity());
        }
        out.write(header.array());
    }

    public void flush()
            throws IOException
    {
        out.flush();
    }
}
