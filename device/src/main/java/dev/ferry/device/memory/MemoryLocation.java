package dev.ferry.device.memory;

import java.util.Objects;

/**
 * Where a buffer's bytes live: memory of one device (by ordinal), or page-locked host memory
 * that every device can reach with DMA.
 */
public final class MemoryLocation
{
    private static final MemoryLocation PINNED_HOST = new MemoryLocation(Kind.PINNED_HOST, -1);

    public enum Kind
    {
        DEVICE,
        PINNED_HOST,
    }

    private final Kind kind;
    private final int device;

    private MemoryLocation(Kind kind, int device)
    {
        this.kind = kind;
        this.device = device;
    }

    public static MemoryLocation device(int device)
    {
        if (device < 0) {
            throw new IllegalArgumentException("device ordinal must not be negative: " + device);
        }
        return new MemoryLocation(Kind.DEVICE, device);
    }

    public static MemoryLocation pinnedHost()
    {
        return PINNED_HOST;
    }

    public Kind kind()
    {
        return kind;
    }

    public boolean isDevice()
    {
        return kind == Kind.DEVICE;
    }

    /** The device ordinal; only meaningful for {@link Kind#DEVICE}. */
    public int device()
    {
        if (kind != Kind.DEVICE) {
            throw new IllegalStateException("pinned host memory belongs to no device");
        }
        return device;
    }

    @Override
    public boolean equals(Object other)
    {
        if (!(other instanceof MemoryLocation)) {
            return false;
        }
        MemoryLocation that = (MemoryLocation) other;
        return kind == that.kind && device == that.device;
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(kind, device);
    }

    @Override
    public String toString()
    {
        return kind == Kind.DEVICE ? "device " + device : "pinned host memory";
    }
}
