package dev.ferry.shuffle.store;

import java.nio.ByteBuffer;
import java.util.function.Consumer;

import static java.util.Objects.requireNonNull;

/**
 * The whole stored map output a host block is a slice of, for what is worth doing once per output
 * rather than once per block: a NIC registration ({@code ibv_reg_mr}) covers the output and each
 * block served from it is a slice of that registration. {@code key} is the output's identity
 * (compared by identity), {@code bytes} all of its bytes, {@code offset} where the block starts in
 * them; {@code onRelease} adds a hook the store runs once when it releases the output (at once if it
 * already has). Readers may still hold slices then: whoever registered the output keeps it
 * registered until its own last slice is done.
 *
 * <p>Exposure: whoever holds a key for the output's registration can reach every block of it.
 */
public record HostRegion(Object key, ByteBuffer bytes, long offset, Consumer<Runnable> onRelease)
{
    public HostRegion
    {
        requireNonNull(key, "key is null");
        requireNonNull(bytes, "bytes is null");
        requireNonNull(onRelease, "onRelease is null");
        if (offset < 0 || offset > bytes.capacity()) {
            throw new IllegalArgumentException("Block offset " + offset + " outside a region of " + bytes.capacity() + " bytes");
        }
        bytes = bytes.duplicate().clear();
    }

    @Override
    public ByteBuffer bytes()
    {
        return bytes.duplicate();
    }

    public long size()
    {
        return bytes.capacity();
    }

    @Override
    public String toString()
    {
        return "host region of " + bytes.capacity() + " bytes";
    }
}
