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
 * name; holding this reference keeps the file from being deleted. A slice of a stored output in
 * memory names that output ({@link #region}), so a NIC registers the output once for all its blocks.
 */
public final class BlockBytes
        implements AutoCloseable
{
    private ArrowBuf buffer;
    private final long length;
    private final ShmBlockHandle sharedAt;
    private final HostRegion region;

    public BlockBytes(ArrowBuf buffer, long length)
    {
        this(buffer, length, null);
    }

    /** {@code sharedAt} (nullable): where the same bytes lie in a shared-memory file. */
    public BlockBytes(ArrowBuf buffer, long length, ShmBlockHandle sharedAt)
    {
        this(buffer, length, sharedAt, null);
    }

    /** {@code region} (nullable): the stored output these bytes are a slice of (the buffer's bytes are the region's from its offset). */
    public BlockBytes(ArrowBuf buffer, long length, ShmBlockHandle sharedAt, HostRegion region)
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
        if (region != null && length > region.size() - region.offset()) {
            throw new IllegalArgumentException("Block of " + length + " bytes at offset " + region.offset() + " outside its " + region);
        }
        this.region = region;
    }

    /** The stored output in memory this block is a slice of, when the store says so. */
    public Optional<HostRegion> region()
    {
        return Optional.ofNullable(region);
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
