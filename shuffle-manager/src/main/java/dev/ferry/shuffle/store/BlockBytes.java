package dev.ferry.shuffle.store;

import org.apache.arrow.memory.ArrowBuf;

import static java.util.Objects.requireNonNull;

/**
 * The bytes of one shuffle block, held by reference: for a block in host memory this is a slice
 * of the stored output (no copy), otherwise a buffer filled from disk or the network. Closing
 * releases the reference; {@link #takeBuffer} hands it to a new owner instead.
 */
public final class BlockBytes
        implements AutoCloseable
{
    private ArrowBuf buffer;
    private final long length;

    public BlockBytes(ArrowBuf buffer, long length)
    {
        this.buffer = requireNonNull(buffer, "buffer is null");
        if (length < 0 || length > buffer.capacity()) {
            throw new IllegalArgumentException("length " + length + " outside the buffer's " + buffer.capacity() + " bytes");
        }
        this.length = length;
    }

    public long length()
    {
        return length;
    }

    public ArrowBuf buffer()
    {
        if (buffer == null) {
            throw new IllegalStateException("Block buffer was handed over");
        }
        return buffer;
    }

    /** Hands the buffer (and the duty to close it) to the caller; closing this afterwards does nothing. */
    public ArrowBuf takeBuffer()
    {
        ArrowBuf taken = buffer();
        buffer = null;
        return taken;
    }

    @Override
    public void close()
    {
        if (buffer != null) {
            buffer.close();
            buffer = null;
        }
    }
}
