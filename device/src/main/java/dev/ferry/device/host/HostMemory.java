package dev.ferry.device.host;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.device.memory.DeviceOutOfMemoryException;
import dev.ferry.device.memory.MemoryLocation;
import dev.ferry.device.memory.NativeMemory;
import dev.ferry.device.spi.HostView;

import java.nio.ByteBuffer;
import java.util.OptionalLong;

/**
 * Host memory standing in for device or pinned memory: a direct ByteBuffer. Freeing drops the
 * last reference and leaves the bytes to the buffer's Cleaner; Ferry's accounting is released
 * explicitly, and no code can reach a freed buffer, so a late caller cannot crash the JVM.
 */
public final class HostMemory
        extends ByteBufferMemory
{
    // ByteBuffer capacities are ints; keep a margin for alignment slack.
    public static final long MAX_SIZE = Integer.MAX_VALUE - 8192L;
    private static final int PAGE = 4096;

    private HostMemory(MemoryLocation location, ByteBuffer buffer)
    {
        super(location, buffer);
    }

    public static HostMemory allocate(MemoryLocation location, long size)
    {
        if (size > MAX_SIZE) {
            throw new DeviceOutOfMemoryException("Cannot allocate " + size + " bytes of " + location + " on a JVM-backed backend: buffers are limited to " + MAX_SIZE + " bytes each", size);
        }
        try {
            // Page-aligned like cudaHostAlloc, so direct I/O can land in it without a bounce.
            // alignedSlice moves the start up and the end down to page boundaries; a page of slack covers both.
            int rounded = (int) ((size + PAGE - 1) / PAGE * PAGE);
            ByteBuffer aligned = ByteBuffer.allocateDirect(rounded + PAGE).alignedSlice(PAGE).slice(0, (int) size);
            return new HostMemory(location, aligned);
        }
        catch (OutOfMemoryError e) {
            // Only the direct-memory limit raises this here; it is a resource failure of this allocation, not of the JVM.
            throw new DeviceOutOfMemoryException("Cannot allocate " + size + " bytes of " + location + ": " + e.getMessage() + " (raise -XX:MaxDirectMemorySize)", size);
        }
    }

    /**
     * The host view of "pinned" memory on a JVM-backed backend: the direct buffer itself, with no
     * raw address (the JVM hides it without JavaCPP, which these backends must not need) and not
     * page-locked, because {@code why} (given by the backend).
     */
    public static HostView unlockedView(NativeMemory memory, String why)
    {
        ByteBufferMemory host = ByteBufferMemory.of(memory);
        if (memory.location().isDevice()) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, "Only pinned host memory has a host view, not " + memory.describe());
        }
        return new HostView(host.window(0, host.size()), OptionalLong.empty(), false, why);
    }

    @Override
    public String describe()
    {
        return "host buffer (" + size() + " bytes, standing in for " + location() + ")";
    }

    @Override
    protected void free()
    {
        // Nothing to do: see the class comment.
    }
}
