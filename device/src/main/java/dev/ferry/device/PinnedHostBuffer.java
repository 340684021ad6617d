package dev.ferry.device;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.device.memory.DeviceBuffer;

import java.nio.ByteBuffer;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;

import static java.util.Objects.requireNonNull;

/**
 * Pinned (page-locked) host memory the JVM can read and write: a staging buffer for host -> device
 * copies that the DMA engine reads without a driver-side bounce. Made only by
 * {@link DeviceRuntime#allocatePinnedHost}; the bytes belong to a {@link DeviceBuffer} in the
 * runtime's pinned allocator tree, so the limit ({@code spark.ferry.device.pinnedLimit}) applies
 * and an unclosed buffer shows up in that tree's leak report.
 *
 * <p>{@link #hostBuffer()} is a ByteBuffer over the same bytes; {@link #deviceBuffer()} is the
 * handle to pass to {@code DeviceStream.copy}, which then copies from pinned memory. Only the
 * {@code cuda} backend's memory is really page-locked ({@code cudaHostAlloc});
 * {@code simulated} and {@code host} give ordinary direct memory and say why in {@link #detail()}.
 *
 * <p>Like Arrow's ArrowBuf, the ByteBuffers handed out do not own the memory: after
 * {@link #close()} the memory may be freed ({@code cudaFreeHost}), so a ByteBuffer kept past close
 * points at freed memory. The accessors refuse after close; callers must not cache their results
 * beyond the buffer's life. Closing twice is an error naming the buffer.
 */
public final class PinnedHostBuffer
        implements AutoCloseable
{
    private final DeviceBuffer buffer;
    private final ByteBuffer view;
    private final OptionalLong address;
    private final boolean pageLocked;
    private final String detail;
    private final String name;
    private final AtomicBoolean closed = new AtomicBoolean();

    PinnedHostBuffer(DeviceBuffer buffer, ByteBuffer view, OptionalLong address, boolean pageLocked, String detail)
    {
        this.buffer = requireNonNull(buffer, "buffer is null");
        this.view = requireNonNull(view, "view is null");
        if (view.capacity() != buffer.length()) {
            throw new IllegalArgumentException("host view of " + view.capacity() + " bytes for " + buffer.name());
        }
        this.address = requireNonNull(address, "address is null");
        this.pageLocked = pageLocked;
        this.detail = requireNonNull(detail, "detail is null");
        // Kept, so messages after close (when the handle refuses every use) still name the buffer.
        this.name = "pinned host " + buffer.name();
    }

    public long length()
    {
        return buffer.length();
    }

    /** A fresh ByteBuffer over all the bytes (position 0, limit = length); refused after close. */
    public ByteBuffer hostBuffer()
    {
        checkOpen("view");
        return view.duplicate().clear();
    }

    /** The handle for {@code DeviceStream} copies; it stays owned by this buffer (do not close it). */
    public DeviceBuffer deviceBuffer()
    {
        checkOpen("copy");
        return buffer;
    }

    /** The raw host address of byte 0 where the backend knows one (cuda), else empty. */
    public OptionalLong address()
    {
        checkOpen("read the address of");
        return address;
    }

    /** True only for memory the driver really locked (cuda's cudaHostAlloc). */
    public boolean isPageLocked()
    {
        return pageLocked;
    }

    /** How the memory was allocated, or why it is not page-locked on this backend. */
    public String detail()
    {
        return detail;
    }

    public boolean isOpen()
    {
        return !closed.get();
    }

    public String name()
    {
        return name;
    }

    @Override
    public void close()
    {
        if (!closed.compareAndSet(false, true)) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, "Double close of " + name);
        }
        buffer.close();
    }

    private void checkOpen(String operation)
    {
        if (closed.get()) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, "Use after close: cannot " + operation + " " + name + ", it was already closed");
        }
    }

    @Override
    public String toString()
    {
        return name + (pageLocked ? " (page-locked)" : " (not page-locked: " + detail + ")") + (closed.get() ? " (closed)" : "");
    }
}
