package dev.ferry.shuffle.store;

import java.util.Optional;

import dev.ferry.shuffle.transport.shm.ShmBlockHandle;
import org.apache.arrow.memory.ArrowBuf;

import static java.util.Objects.requireNonNull;

/**
 * The bytes of one shuffle block, held by reference: for a block in host memory this is a slice
 * of the stored output (no copy), otherwise a buffer filled from disk or the network. Closing
 * releases the reference; {@link #takeBuffer} hands it to a new owner instead. A block whose
 * bytes lie in a shared-memory file ({@link #sharedAt}) can be handed to a same-node reader by
 * name; holding this reference keeps the file from being deleted.
 */
public final class BlockBytes
        implements AutoCloseable
{
    private ArrowBuf buffer;
    private final long length;
    private final ShmBlockHandle sharedAt;

    public BlockBytes(ArrowBuf buffer, long length)
    {
        this(buffer, length, null);
    }

    /** {@code sharedAt} (nullable): where the same bytes lie in a shared-memory file. */
    public BlockBytes(ArrowBuf buffer, long length, ShmBlockHandle sharedAt)
    {
        this.buffer = requireNonNull(buffer, "buffer is null");
        if (length < 0 || length > buffer.capacity()) {
            throw new IllegalArgumentException("length " + length + " outside the buffer's " + buffer.capacity() + " bytes");
        }
        this.length = length;
        if (sharedAt != null && sharedAt.length() != length) {
            throw new IllegalArgumentException("Shared-memory handle of " + sharedAt.length() + " bytes for a block of " + length);
        }
        this.sharedAt = sharedAt;
    }

    /** The shared-memory file and range holding this block, when the store keeps it in one. */
    public Optional<ShmBlockHandle> sharedAt()
    {
        return Optional.ofNullable(sharedAt);
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
