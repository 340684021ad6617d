package dev.ferry.device.spi;

import java.nio.ByteBuffer;
import java.util.OptionalLong;

import static java.util.Objects.requireNonNull;

/**
 * What a backend returns for {@link DeviceBackend#hostView}: the host bytes of one pinned-host
 * allocation as a ByteBuffer (index 0 is the memory's byte 0), its raw address where the backend
 * knows one, and whether the pages are really locked. {@code detail} says which: the allocation
 * call for page-locked memory, or why this backend hands out ordinary memory instead.
 */
public final class HostView
{
    private final ByteBuffer buffer;
    private final OptionalLong address;
    private final boolean pageLocked;
    private final String detail;

    public HostView(ByteBuffer buffer, OptionalLong address, boolean pageLocked, String detail)
    {
        this.buffer = requireNonNull(buffer, "buffer is null");
        if (!buffer.isDirect()) {
            // A heap buffer can move under GC; nothing outside the JVM may ever read or write it.
            throw new IllegalArgumentException("A host view must be a direct buffer");
        }
        this.address = requireNonNull(address, "address is null");
        this.pageLocked = pageLocked;
        this.detail = requireNonNull(detail, "detail is null");
    }

    public ByteBuffer buffer()
    {
        return buffer;
    }

    public OptionalLong address()
    {
        return address;
    }

    public boolean pageLocked()
    {
        return pageLocked;
    }

    public String detail()
    {
        return detail;
    }
}
