package dev.ferry.shuffle.format;

import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;

import org.apache.arrow.memory.ArrowBuf;

import static java.util.Objects.requireNonNull;

/** Reads a region of an {@link ArrowBuf} as a channel, and can skip ahead so message bodies are sliced, not copied. */
final class ArrowBufChannel
        implements ReadableByteChannel
{
    private final ArrowBuf buffer;
    private final long end;
    private long position;

    ArrowBufChannel(ArrowBuf buffer, long start, long end)
    {
        this.buffer = requireNonNull(buffer, "buffer is null");
        this.position = start;
        this.end = end;
    }

    long position()
    {
        return position;
    }

    long remaining()
    {
        return end - position;
    }

    void skip(long bytes)
    {
        if (bytes < 0 || bytes > remaining()) {
            throw new IndexOutOfBoundsException("Cannot skip " + bytes + " bytes with " + remaining() + " left");
        }
        position += bytes;
    }

    @Override
    public int read(ByteBuffer target)
    {
        if (position >= end) {
            return -1;
        }
        int length = (int) Math.min(target.remaining(), end - position);
        ByteBuffer source = buffer.nioBuffer(position, length);
        target.put(source);
        position += length;
        return length;
    }

    @Override
    public boolean isOpen()
    {
        return true;
    }

    @Override
    public void close() {}
}
