package dev.ferry.device;

import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;

import static java.util.Objects.requireNonNull;

/**
 * The whole allocation a device buffer was carved from (a {@code cudaMalloc} slab of the device
 * pool, a simulated GPU's arena), for what is worth doing once per allocation rather than once per
 * buffer: a NIC registration ({@code ibv_reg_mr}) covers the region and each block is a slice of
 * it. The region outlives its buffers; {@link #onRelease} runs a hook just before the region's
 * memory is given back, so a registration never outlives the memory under it.
 *
 * <p>Exposure: whoever holds a key for the region can reach every byte of it, not only one block.
 */
public final class DeviceRegion
{
    private final Object key;
    private final int device;
    private final long size;
    private final long offset;
    private final Optional<ByteBuffer> bytes;
    private final OptionalLong address;
    private final Consumer<Runnable> onRelease;

    /**
     * {@code key}: the region's identity (compared by identity); {@code offset}: where the buffer
     * starts in it; {@code bytes}: the whole region, when JVM-addressable (simulated); {@code address}:
     * its device pointer, when a NIC can register it by pointer (cuda); {@code onRelease}: adds a hook.
     */
    public DeviceRegion(Object key, int device, long size, long offset, Optional<ByteBuffer> bytes, OptionalLong address, Consumer<Runnable> onRelease)
    {
        this.key = requireNonNull(key, "key is null");
        this.device = device;
        if (size <= 0 || offset < 0 || offset >= size) {
            throw new IllegalArgumentException("Buffer offset " + offset + " outside a region of " + size + " bytes");
        }
        this.size = size;
        this.offset = offset;
        this.bytes = requireNonNull(bytes, "bytes is null").map(ByteBuffer::duplicate);
        this.address = requireNonNull(address, "address is null");
        if (this.bytes.isPresent() == address.isPresent()) {
            throw new IllegalArgumentException("A region is addressed either through its bytes or by its device pointer");
        }
        this.onRelease = requireNonNull(onRelease, "onRelease is null");
    }

    public Object key()
    {
        return key;
    }

    public int device()
    {
        return device;
    }

    public long size()
    {
        return size;
    }

    /** Where the buffer this region was asked for starts in it. */
    public long offset()
    {
        return offset;
    }

    /** The whole region's bytes, for memory the JVM can address (simulated GPUs). */
    public Optional<ByteBuffer> bytes()
    {
        return bytes.map(ByteBuffer::duplicate);
    }

    /** The region's device pointer (cuda). */
    public OptionalLong address()
    {
        return address;
    }

    /** Runs {@code hook} once, before the region's memory is given back (never while a buffer of it lives). */
    public void onRelease(Runnable hook)
    {
        onRelease.accept(requireNonNull(hook, "hook is null"));
    }

    /** The same region as seen from a buffer {@code delta} bytes further into it. */
    DeviceRegion shifted(long delta)
    {
        return delta == 0 ? this : new DeviceRegion(key, device, size, offset + delta, bytes, address, onRelease);
    }

    @Override
    public String toString()
    {
        return "region of " + size + " bytes on device " + device + (address.isPresent() ? " at 0x" + Long.toHexString(address.getAsLong()) : "");
    }
}
